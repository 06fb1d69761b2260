export { buildApp, DEFAULT_BASE_URL, type AppOptions, type GatehouseApp } from './app.js';
export { ERROR_CODES, ApiError, type ErrorCode } from './errors.js';
export { parseRateLimit, type RateLimit } from '@gatehouse/schemas';
export { SERVICE_RATE_LIMITED, SERVICE_TOO_MANY_CONCURRENT, type Limits } from './http/limits.js';
export { parseFaultInjection, FAULT_MODES, type FaultInjection, type FaultMode } from './http/faults.js';
export type { AuditEvent } from './domain/audit.js';
export { startHarness, authHeaders, errorOf, TEST_API_KEY, TEST_BASE_URL, type Harness, type CallResult } from './testing/harness.js';
export { startServer, DEFAULT_DB_PATH, DEFAULT_HOST, DEFAULT_PORT, type ServeOptions, type RunningServer } from './server.js';
