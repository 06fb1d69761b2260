/**
 * Custom JSON Schema keywords used by gatehouse schemas, in a form any ajv instance can
 * register: `for (const k of customKeywords) ajv.addKeyword(k)`.
 */
export interface KeywordDefinition {
  keyword: string;
  type: 'string';
  schemaType: 'number';
  errors: boolean;
  validate: ((limit: number, data: string) => boolean) & { errors?: unknown[] | null };
}

/** `maxBytes: N`: the string's UTF-8 encoding is at most N bytes long. */
export const maxBytesKeyword: KeywordDefinition = {
  keyword: 'maxBytes',
  type: 'string',
  schemaType: 'number',
  errors: false,
  validate: (limit: number, data: string) => Buffer.byteLength(data, 'utf8') <= limit,
};

export const customKeywords: KeywordDefinition[] = [maxBytesKeyword];
