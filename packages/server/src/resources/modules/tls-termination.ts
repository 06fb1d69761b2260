/**
 * The TLS termination module of an HTTPS edge (EndpointTLSTermination, api-spec 2.7, 4.7).
 *
 * `terminate_at` is accepted on create and PUT (the spec leaves it open; accepting it is the
 * only way to reach `upstream`) and defaults to `edge`, which the response always shows.
 * `min_version` is one of 1.0..1.3 (checked by the schema) or null; it must be null when TLS
 * passes through to the upstream. When unspecified it comes back null: the service then picks
 * its safe default at handshake time.
 */
import { EndpointTlsTermination, EndpointTlsTerminationInput } from '@gatehouse/schemas';
import { invalidModule } from '../../errors.js';
import type { ModuleDefinition } from '../modules.js';

export const tlsTerminationModule: ModuleDefinition<EndpointTlsTermination> = {
  name: 'tls_termination',
  input: EndpointTlsTerminationInput,
  output: EndpointTlsTermination,
  write(input, _ctx, field) {
    const given = input as EndpointTlsTerminationInput;
    const terminateAt = given.terminate_at ?? 'edge';
    const minVersion = given.min_version ?? null;
    if (terminateAt === 'upstream' && minVersion !== null) {
      throw invalidModule(`${field}.min_version`, 'must be null when terminate_at is upstream.');
    }
    return { enabled: given.enabled ?? true, terminate_at: terminateAt, min_version: minVersion };
  },
};
