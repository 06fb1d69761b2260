/**
 * The parts of undici the client uses (its connection pool, `Agent`, and the `request` call),
 * loaded from undici's own files rather than its index. The index requires some 110 files
 * (fetch, WebSocket, EventSource, mocks, caches, interceptors, proxy agents) that a command
 * never uses: about 80 ms of CPU in every `plan` and `apply` before the first request; these
 * two cost about half. undici has no `exports` map, so its files are public paths; a file
 * missing after an upgrade fails at start, loudly, in every test that makes a request.
 *
 * `request` works with any undici dispatcher, including one made from undici's index (a
 * proxy agent, a mock): it only calls the dispatcher's `dispatch`.
 */
import { createRequire } from 'node:module';
import type { Agent as UndiciAgent, Dispatcher } from 'undici';

const require = createRequire(import.meta.url);

/** undici's `Agent` (a pool of connections per origin). */
export const Agent = require('undici/lib/dispatcher/agent.js') as typeof UndiciAgent;

/** undici's `request` API, called with the dispatcher as `this` (how undici's index binds it). */
const dispatcherRequest = require('undici/lib/api/api-request.js') as (
  this: Dispatcher,
  options: Dispatcher.RequestOptions,
) => Promise<Dispatcher.ResponseData>;

/** What `request` takes besides the URL: undici's request options without origin and path. */
export type RequestInit = Omit<Dispatcher.RequestOptions, 'origin' | 'path'>;

/** undici's `request(url, { dispatcher, ... })`, through `dispatcher`. */
export function request(dispatcher: Dispatcher, url: URL, options: RequestInit): Promise<Dispatcher.ResponseData> {
  return dispatcherRequest.call(dispatcher, { ...options, origin: url.origin, path: `${url.pathname}${url.search}` });
}
