/**
 * The backend module (EndpointBackend, api-spec 2.5 and 4.5) of TCP edges and HTTPS edge
 * routes: `backend_id` in, naming an existing backend of any kind, `backend` Ref out
 * (`{base_url}/backends/<kind>/<id>`), `enabled` true when unspecified.
 */
import { EndpointBackend, EndpointBackendInput } from '@gatehouse/schemas';
import { invalidReference } from '../../errors.js';
import { BACKEND_KINDS } from '../backends.js';
import type { ModuleDefinition } from '../modules.js';

interface StoredBackendModule {
  enabled: boolean;
  backend_id: string;
}

export const backendModule: ModuleDefinition<StoredBackendModule> = {
  name: 'backend',
  input: EndpointBackendInput,
  output: EndpointBackend,
  write(input, { store }, field) {
    const { enabled = true, backend_id } = input as EndpointBackendInput;
    if (!store.get(backend_id, ...BACKEND_KINDS)) throw invalidReference(`${field}.backend_id`, backend_id, 'Backend');
    return { enabled, backend_id };
  },
  render: (stored, { urls }): EndpointBackend => ({ enabled: stored.enabled, backend: urls.ref(stored.backend_id) }),
};
