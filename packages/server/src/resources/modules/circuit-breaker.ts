/**
 * The circuit breaker module of a route (EndpointCircuitBreaker, api-spec 2.7). The schema
 * enforces the ranges (uint32 fields, `num_buckets` 1..128, `error_threshold_percentage`
 * 0..1, not 0..100); an omitted number comes back as 0, the zero value by which the service
 * means "its own default", as it does for the identity modules' session settings.
 */
import { EndpointCircuitBreaker, EndpointCircuitBreakerInput } from '@gatehouse/schemas';
import type { ModuleDefinition } from '../modules.js';

export const circuitBreakerModule: ModuleDefinition<EndpointCircuitBreaker> = {
  name: 'circuit_breaker',
  input: EndpointCircuitBreakerInput,
  output: EndpointCircuitBreaker,
  write(input) {
    const given = input as EndpointCircuitBreakerInput;
    return {
      enabled: given.enabled ?? true,
      tripped_duration: given.tripped_duration ?? 0,
      rolling_window: given.rolling_window ?? 0,
      num_buckets: given.num_buckets ?? 0,
      volume_threshold: given.volume_threshold ?? 0,
      error_threshold_percentage: given.error_threshold_percentage ?? 0,
    };
  },
};
