/**
 * `buildApp(options)` assembles the reference management API and returns it without
 * listening (tests use `app.inject`; `server.ts` listens). The database is opened here and
 * closed in `onClose`, so closing the app releases everything it holds.
 */
import Fastify, { LogController, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { openDatabase, MEMORY, type Db } from './db/database.js';
import { Store } from './db/store.js';
import { AuditLog } from './domain/audit.js';
import { ApiKeys } from './domain/api-keys.js';
import { registerAuth, type KeyResolver } from './http/auth.js';
import { clientErrorHandler } from './http/client-errors.js';
import { routerErrorHandler } from './http/router-errors.js';
import { registerErrorHandling } from './http/errors.js';
import { registerRequestLog, REQUEST_ID_LABEL } from './http/request-log.js';
import { registerHostCheck, registerRequestShapeChecks } from './http/request-shape.js';
import { registerJsonBody } from './http/json-body.js';
import { Urls } from './http/urls.js';
import { serializerCompiler } from './http/serialization.js';
import { validatorCompiler } from './http/validation.js';
import { newId } from './ids.js';
import { registerAllResources } from './resources/index.js';
import { registerLimits, type Limits } from './http/limits.js';
import { registerFaultInjection, type FaultInjection } from './http/faults.js';
import { registerShutdownBehaviour } from './http/shutdown.js';
import { Deliverer, type DeliveryOptions } from './domain/delivery.js';
import { DeliveryLog } from './domain/delivery-log.js';
import { registerAdminDeliveries } from './http/admin-deliveries.js';
import { EVENT_DESTINATION } from './resources/event-destinations.js';

export interface AppOptions extends Limits {
  /** SQLite file, or ':memory:' (the default). */
  db?: string;
  /** API keys accepted in addition to those stored in the database. */
  apiKeys?: readonly string[];
  /** Absolute base URL that every `uri` is built under. */
  baseUrl?: string;
  /** TESTS ONLY: fail a fraction of requests before or after processing (see http/faults.ts). */
  faults?: FaultInjection;
  /**
   * Event delivery (domain/delivery.ts), e.g. `{ sinkPath }` for a JSON-lines sink. `false`
   * runs no deliverer: events stay queued in the outbox (tests of delivery across restarts).
   */
  delivery?: DeliveryOptions | false;
  logger?: FastifyServerOptions['logger'];
  /**
   * Refuse an edge hostport that no reservation covers (`invalid_hostport`), as the service
   * does; true unless false (`serve --no-reservation-check`).
   */
  reservationCheck?: boolean;
  /**
   * How long a request may take to arrive in full (headers and body; default 30 s, then Node
   * answers 408 and closes), and how long a connection may stay idle (default 75 s, beyond
   * the 72 s keep-alive, so an idle keep-alive connection is closed by keep-alive first).
   * `checkIntervalMs` is how often Node looks for late requests (default 1 s).
   */
  timeouts?: { requestMs?: number; connectionMs?: number; checkIntervalMs?: number };
}

export interface GatehouseApp extends FastifyInstance {
  db: Db;
  apiKeys: ApiKeys;
  audit: AuditLog;
  /** Absent when `delivery: false`. `flush()` delivers everything deliverable now. */
  deliverer: Deliverer | undefined;
}

export const DEFAULT_BASE_URL = 'http://127.0.0.1:8484';

export async function buildApp(options: AppOptions = {}): Promise<GatehouseApp> {
  let resolveKey: KeyResolver = () => undefined;
  const requestTimeout = options.timeouts?.requestMs ?? 30_000;
  const app = Fastify({
    // A request whose body never arrives must not hold its connection for ever.
    requestTimeout,
    connectionTimeout: options.timeouts?.connectionMs ?? 75_000,
    // Node reads these when the server is created (set later, they are not enforced). Node's
    // own answer to an HTTP/1.1 request without Host is a bare 400: http/request-shape.ts
    // answers it in the envelope instead.
    http: {
      requestTimeout,
      headersTimeout: Math.min(requestTimeout, 60_000),
      connectionsCheckingInterval: options.timeouts?.checkIntervalMs ?? 1000,
      requireHostHeader: false,
    },
    // The router's own errors (414, bad percent-encoding) in the envelope, after authentication.
    frameworkErrors: routerErrorHandler(() => resolveKey),
    // Node's own parser errors (408, 431, not HTTP) in the envelope too.
    clientErrorHandler,
    logger: options.logger ?? false,
    genReqId: () => newId('op'),
    // One line per request, with the id under the name clients see (http/request-log.ts).
    logController: new LogController({ requestIdLogLabel: REQUEST_ID_LABEL, disableRequestLogging: true }),
    bodyLimit: 1024 * 1024,
    // Requests arriving while the server closes get the error envelope (http/shutdown.ts),
    // not Fastify's own 503 body.
    return503OnClosing: false,
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, useDefaults: false } },
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerJsonBody(app);

  const db = openDatabase(options.db ?? MEMORY);
  const urls = new Urls(options.baseUrl ?? DEFAULT_BASE_URL);
  const store = new Store(db);
  const audit = new AuditLog(db, urls);
  const apiKeys = new ApiKeys(db, options.apiKeys ?? []);
  const deliveryLog = new DeliveryLog(db);
  const deliverer =
    options.delivery === false ? undefined : new Deliverer(deliveryLog, (id) => store.get(id, EVENT_DESTINATION) !== undefined, app.log, options.delivery);

  app.decorate('services', { store, urls, audit, reservationCheck: options.reservationCheck ?? true });
  app.decorate('db', db);
  app.decorate('apiKeys', apiKeys);
  app.decorate('audit', audit);
  app.decorate('deliverer', deliverer);
  app.addHook('onClose', async () => {
    // The deliverer first: the pass it finishes records its deliveries in the database.
    await deliverer?.stop();
    db.close();
  });
  // A write's transaction has committed by the time its response is sent: deliver its events.
  if (deliverer) {
    app.addHook('onResponse', async (request) => {
      if (request.method !== 'GET') deliverer.wake();
    });
  }
  registerRequestLog(app);
  registerShutdownBehaviour(app);

  registerErrorHandling(app);
  registerHostCheck(app);
  resolveKey = (hash) => apiKeys.resolve(hash);
  registerAuth(app, resolveKey);
  registerLimits(app, options);
  if (options.faults) registerFaultInjection(app, options.faults);
  registerRequestShapeChecks(app);
  registerAllResources(app);
  registerAdminDeliveries(app, deliveryLog);

  await app.ready();
  deliverer?.start();
  return app as unknown as GatehouseApp;
}
