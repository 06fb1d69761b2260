/** Fields and rendering shared by every top-level resource. */
import type { StoredObject } from '../db/store.js';

export interface CommonFields {
  description?: string;
  metadata?: string;
}

/**
 * `{id, uri, created_at, description?, metadata?, ...rest}`: description and metadata are
 * omitted when they were never set, as the service does.
 */
export function withCommonFields<T extends object>(
  object: StoredObject<CommonFields>,
  uri: string,
  rest: T,
): { id: string; uri: string; created_at: string; description?: string; metadata?: string } & T {
  const { description, metadata } = object.data;
  return {
    id: object.id,
    uri,
    created_at: object.createdAt,
    ...(description !== undefined ? { description } : {}),
    ...(metadata !== undefined ? { metadata } : {}),
    ...rest,
  };
}
