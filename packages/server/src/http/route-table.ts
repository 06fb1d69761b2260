/**
 * Every route an app registers, read from `app.printRoutes()` at test time, so
 * that tests iterating over the routes cover resource families added later without being
 * edited. Each parsed route is checked against `app.hasRoute`, so a change in the printed
 * format fails loudly instead of silently yielding fewer routes.
 */
import type { FastifyInstance, HTTPMethods } from 'fastify';

export interface RouteEntry {
  method: HTTPMethods;
  /** Fastify path with parameters, e.g. `/ip_policies/:id`. */
  path: string;
}

const LINE = /^([│├└─\s]*)(\S.*?)(?: \(([A-Z,\s-]+)\))?$/u;

export function registeredRoutes(app: FastifyInstance): RouteEntry[] {
  const printed = app.printRoutes({ commonPrefix: false });
  const prefixes: string[] = [];
  const routes: RouteEntry[] = [];
  for (const line of printed.split('\n')) {
    if (line.trim() === '') continue;
    const match = LINE.exec(line);
    if (!match) throw new Error(`unparsed route line: ${line}`);
    const depth = Math.max(0, Math.floor(match[1]!.length / 4) - 1);
    // A segment where routes name their parameter differently prints as `:id|:edge_id`.
    const segment = match[2]!.replace(/(:[A-Za-z_]\w*)(?:\|:[A-Za-z_]\w*)+/g, '$1');
    const path = (depth > 0 ? prefixes[depth - 1]! : '') + segment;
    prefixes[depth] = path;
    prefixes.length = depth + 1;
    for (const method of (match[3] ?? '').split(',').map((m) => m.trim())) {
      if (method === '' || method === '-') continue;
      routes.push({ method: method as HTTPMethods, path });
    }
  }
  for (const route of routes) {
    if (!app.hasRoute({ method: route.method, url: route.path })) {
      throw new Error(`parsed ${route.method} ${route.path} from printRoutes, but the app has no such route`);
    }
  }
  return routes;
}

/** A concrete URL for a route: every `:param` replaced by an id that exists nowhere. */
export function concreteUrl(path: string): string {
  return path.replace(/:[A-Za-z_][A-Za-z0-9_]*/g, 'zz_doesnotexist');
}
