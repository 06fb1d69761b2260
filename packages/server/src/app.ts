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
import { registerAuth } from './http/auth.js';
import { registerErrorHandling } from './http/errors.js';
import { registerRequestLog } from './http/request-log.js';
import { registerRequestShapeChecks } from './http/request-shape.js';
import { Urls } from './http/urls.js';
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
  const app = Fastify({
    logger: options.logger ?? false,
    genReqId: () => newId('op'),
    // One line per request, with the id under the name clients see (http/request-log.ts).
    logController: new LogController({ requestIdLogLabel: 'operation_id', disableRequestLogging: true }),
    bodyLimit: 1024 * 1024,
    // Requests arriving while the server closes get the error envelope (http/shutdown.ts),
    // not Fastify's own 503 body.
    return503OnClosing: false,
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, useDefaults: false } },
  });
  app.setValidatorCompiler(validatorCompiler);
  // Bodies are JSON only: without this, Fastify's default text/plain parser would hand a
  // string to validation and the client would hear about a type error, not the media type.
  app.removeContentTypeParser('text/plain');

  const db = openDatabase(options.db ?? MEMORY);
  const urls = new Urls(options.baseUrl ?? DEFAULT_BASE_URL);
  const store = new Store(db);
  // GET answers are cached as serialized bodies; every write through the store drops them
  // (and so do other connections' commits and a new base URL: cache/render-cache.ts).
  const renderCache = new RenderCache(db, () => urls.of(''));
  store.onWrite(() => renderCache.invalidate());
  const audit = new AuditLog(db, urls);
  const apiKeys = new ApiKeys(db, options.apiKeys ?? []);
  const deliveryLog = new DeliveryLog(db);
  const deliverer =
    options.delivery === false
      ? undefined
      : new Deliverer(deliveryLog, (id) => store.get(id, EVENT_DESTINATION) !== undefined, app.log, options.delivery);

  app.decorate('services', { store, urls, audit });
  app.decorate('db', db);
  app.decorate('renderCache', renderCache);
  app.decorate('apiKeys', apiKeys);
  app.decorate('audit', audit);
  app.decorate('deliveryLog', deliveryLog);
  app.decorate('deliverer', deliverer);
  app.addHook('onClose', async () => {
    await deliverer?.stop();
    db.close();
  });
  // A write's transaction has committed by the time its response is sent: deliver its events.
  if (deliverer) {
    // A callback hook: it runs after every response, and an async one costs a promise each time.
    app.addHook('onResponse', (request, _reply, done) => {
      if (request.method !== 'GET') deliverer.wake();
      done();
    });
  }
  registerRequestLog(app);
  registerShutdownBehaviour(app);

  registerErrorHandling(app);
  registerAuth(app, (hash) => apiKeys.resolve(hash));
  if (options.rateLimit) await registerRateLimit(app, options.rateLimit);
  if (options.faults) registerFaultInjection(app, options.faults);
  registerRequestShapeChecks(app);
  registerAllResources(app);
  registerAdminDeliveries(app, deliveryLog);

  await app.ready();
  deliverer?.start();
  return app as unknown as GatehouseApp;
}
