export { GatehouseClient, ROUTE_MODULE_NAMES, type RouteModules, type HttpsEdgeRoutes } from './client.js';
export { Transport } from './transport.js';
export {
  SERVICE_VERSION,
  type ClientOptions,
  type Method,
  type RateLimitOptions,
  type RequestCounts,
  type RequestEvent,
  type RequestOptions,
} from './client-options.js';
export { GatehouseApiError, CLIENT_ERROR_CODES, type ClientErrorCode, type ApiErrorInit } from './errors.js';
export { DEFAULT_RETRY, DEFAULT_TIMEOUT_MS, CONNECT_TIMEOUT_MS, shouldRetry, backoffDelay, worstCaseMs, type RetryOptions } from './retry.js';
export { SERVICE_BUDGET, SERVICE_CONCURRENCY } from './pace.js';
export { parseRetryAfter } from './rate-headers.js';
export {
  paginate,
  paginatePages,
  collect,
  collection,
  listableCollection,
  moduleAccessor,
  PAGE_LIMIT,
  type Collection,
  type ListableCollection,
  type ModuleAccessor,
} from './resources.js';
export { postJson, type PostOptions } from './post.js';
