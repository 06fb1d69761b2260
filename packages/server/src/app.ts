/**
 * `buildApp(options)` assembles the reference management API and returns it without
 * listening (tests use `app.inject`; `server.ts` listens). The database is opened here and
 * closed in `onClose`, so closing the app releases everything it holds.
 */
import Fastify, { LogController, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { openDatabase, MEMORY, type Db } from './db/database.js';
import { Store } from './db/store.js';
import { RenderCache } from './cache/render-cache.js';
import { AuditLog } from './domain/audit.js';
import { ApiKeys } from './domain/api-keys.js';
import { registerAuth, type KeyResolver } from './http/auth.js';
import { clientErrorHandler } from './http/client-errors.js';
import { routerErrorHandler } from './http/router-errors.js';
import { registerErrorHandling } from './http/errors.js';
import { registerRequestLog, REQUEST_ID_LABEL } from './http/request-log.js';
import { deferredChildLogger } from './http/deferred-logger.js';
import { registerRequestShapeChecks } from './http/request-shape.js';
import { Urls } from './http/urls.js';
import { serializerCompiler } from './http/serialization.js';
import { validatorCompiler } from './http/validation.js';
import { newId } from './ids.js';
import { registerAllResources } from './resources/index.js';
import { registerRateLimit, type RateLimit } from './http/rate-limit.js';
import { registerFaultInjection, type FaultInjection } from './http/faults.js';
import { registerShutdownBehaviour } from './http/shutdown.js';
import { Deliverer, type DeliveryOptions } from './domain/delivery.js';
import { DeliveryLog } from './domain/delivery-log.js';
import { registerAdminDeliveries } from './http/admin-deliveries.js';
import { EVENT_DESTINATION } from './resources/event-destinations.js';

export interface AppOptions {
  /** SQLite file, or ':memory:' (the default). */
  db?: string;
  /** API keys accepted in addition to those stored in the database. */
  apiKeys?: readonly string[];
  /** Absolute base URL that every `uri` is built under. */
  baseUrl?: string;
  /** Requests allowed per key and window; off when absent. */
  rateLimit?: RateLimit;
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
  /** The delivery outbox and log (read by `GET /_admin/deliveries`). */
  deliveryLog: DeliveryLog;
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
    // Node reads these when the server is created (set later, they are not enforced).
    http: { requestTimeout, headersTimeout: Math.min(requestTimeout, 60_000), connectionsCheckingInterval: options.timeouts?.checkIntervalMs ?? 1000 },
    // The router's own errors (414, bad percent-encoding) in the envelope, after authentication.
    frameworkErrors: routerErrorHandler(() => resolveKey),
    // Node's own parser errors (408, 431, not HTTP) in the envelope too.
    clientErrorHandler,
    logger: options.logger ?? false,
    genReqId: () => newId('op'),
    // One line per request, with the id under the name clients see (http/request-log.ts).
    logController: new LogController({ requestIdLogLabel: REQUEST_ID_LABEL, disableRequestLogging: true }),
    // With a logger, `request.log` becomes pino's child only when a request logs through it;
    // without one, Fastify hands every request its null logger, which costs nothing.
    ...(options.logger ? { childLoggerFactory: deferredChildLogger } : {}),
    bodyLimit: 1024 * 1024,
    // Requests arriving while the server closes get the error envelope (http/shutdown.ts),
    // not Fastify's own 503 body.
    return503OnClosing: false,
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, useDefaults: false } },
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  // Bodies are JSON only: without this, Fastify's default text/plain parser would hand a
  // string to validation and the client would hear about a type error, not the media type.
  app.removeContentTypeParser('text/plain');

  const db = openDatabase(options.db ?? MEMORY);
  const urls = new Urls(options.baseUrl ?? DEFAULT_BASE_URL);
  // A lost fsync or checkpoint thread, or a failed fsync, changes how the server goes on: said
  // once, in the log.
  const store = new Store(db, { notice: ({ level, message, error }) => app.log[level]({ err: error }, message) });
  // GET answers are cached as serialized bodies; every write through the store drops them
  // (and so do other connections' commits and a new base URL: cache/render-cache.ts).
  const renderCache = new RenderCache(db, () => urls.of(''));
  store.onWrite(() => renderCache.invalidate());
  const audit = new AuditLog(db, urls);
  const apiKeys = new ApiKeys(db, options.apiKeys ?? []);
  // Delivery bookkeeping commits with the requests' writes (one fsync, off the event loop).
  const deliveryLog = new DeliveryLog(db, (fn) => store.write(fn));
  const deliverer =
    options.delivery === false
      ? undefined
      : new Deliverer(deliveryLog, (id) => store.get(id, EVENT_DESTINATION) !== undefined, app.log, options.delivery);

  app.decorate('services', { store, urls, audit, reservationCheck: options.reservationCheck ?? true });
  app.decorate('db', db);
  app.decorate('renderCache', renderCache);
  app.decorate('apiKeys', apiKeys);
  app.decorate('audit', audit);
  app.decorate('deliveryLog', deliveryLog);
  app.decorate('deliverer', deliverer);
  app.addHook('onClose', async () => {
    // The deliverer first: the pass it finishes records its deliveries through the store.
    await deliverer?.stop();
    await store.closeWrites();
    db.close();
  });
  // Group commit (db/group-commit.ts) answers a write once its commit is durable; a read may
  // have seen a group that is committed but whose fsync still runs, so its answer waits for
  // that fsync too: nothing is shown that a crash could still take back. A callback hook:
  // when nothing is pending (no write in the last fsync's time) it costs no promise.
  app.addHook('onSend', (request, _reply, payload, done) => {
    const pending = request.method === 'GET' ? store.durable() : undefined;
    if (pending === undefined) done(null, payload);
    else pending.then(() => done(null, payload), (error: Error) => done(error));
  });
  // A write's transaction has committed by the time its response is sent: deliver its events.
  if (deliverer) {
    // Each group commit notes whether an outbox row waits, inside its transaction (no lock of
    // its own), so that the pass after a write response need not ask the database.
    store.onCommitting(() => deliveryLog.noteCommit());
    // A callback hook: it runs after every response, and an async one costs a promise each time.
    app.addHook('onResponse', (request, _reply, done) => {
      if (request.method !== 'GET') deliverer.written();
      done();
    });
  }
  registerRequestLog(app);
  registerShutdownBehaviour(app);

  registerErrorHandling(app);
  resolveKey = (hash) => apiKeys.resolve(hash);
  registerAuth(app, resolveKey);
  if (options.rateLimit) await registerRateLimit(app, options.rateLimit);
  if (options.faults) registerFaultInjection(app, options.faults);
  registerRequestShapeChecks(app);
  registerAllResources(app);
  registerAdminDeliveries(app, deliveryLog);

  await app.ready();
  deliverer?.start();
  return app as unknown as GatehouseApp;
}
