/** A live object as observe read it, with its ownership marker already parsed. */
import type { Collection, KindDescriptor } from './kinds/types.js';
import type { Marker } from './identity/marker.js';
import type { ApiObject } from './ports.js';

export interface LiveObject {
  descriptor: KindDescriptor;
  id: string;
  /** The object exactly as the API returned it (fingerprints are taken over this). */
  raw: ApiObject;
  /** The collection it was listed from (a backend's type comes from it). */
  collection?: Collection;
  /** Live id of the parent (a rule's policy, a route's edge). */
  parentId?: string;
  /** The user's own metadata, marker removed. */
  userMetadata?: string;
  marker?: Marker;
}
