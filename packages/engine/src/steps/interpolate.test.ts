import { expect, test } from 'vitest';
import { interpolate } from './interpolate.js';
import type { LoadedDocument } from './load.js';

const doc = (value: unknown): LoadedDocument => ({ file: 'm.yaml', index: 0, value, locate: (path) => ({ file: 'm.yaml', line: path.length, col: 1 }) });

test('substitutes variables anywhere in any string, nested in maps and lists', () => {
  const { documents, problems } = interpolate(
    [doc({ spec: { issuer: 'https://${env:HOST}/oidc', scopes: ['${env:SCOPE}', 'email'], n: 3 } })],
    { HOST: 'id.example.com', SCOPE: 'openid' },
  );
  expect(problems).toEqual([]);
  expect(documents[0]!.value).toEqual({ spec: { issuer: 'https://id.example.com/oidc', scopes: ['openid', 'email'], n: 3 } });
});

test('$${env:NAME} is a literal', () => {
  const { documents } = interpolate([doc({ a: 'cost: $${env:X}' })], {});
  expect(documents[0]!.value).toEqual({ a: 'cost: ${env:X}' });
});

test('a missing variable is a problem naming it at the string, never showing other values', () => {
  const { problems } = interpolate([doc({ spec: { secret: '${env:MISSING}-${env:SET}' } })], { SET: 'hunter2' });
  expect(problems).toHaveLength(1);
  expect(problems[0]).toMatchObject({ code: 'env_missing', at: { line: 2 } });
  expect(problems[0]!.message).toContain('MISSING');
  expect(problems[0]!.message).not.toContain('hunter2');
});
