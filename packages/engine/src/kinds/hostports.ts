/** The service's hostport rules: `hostname:port`, port 1..65535, and 443 only for HTTPS edges. */
import { problem, type Problem } from '../problems.js';
import type { CheckContext, Spec } from './types.js';

const HOSTNAME = /^(?=.{1,253}$)([a-z0-9*]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i;

export function checkHostports(normal: Spec, ctx: CheckContext, https: boolean): Problem[] {
  const out: Problem[] = [];
  ((normal.hostports as string[] | undefined) ?? []).forEach((hostport, i) => {
    const match = /^(.+):(\d{1,5})$/.exec(hostport);
    const port = match ? Number(match[2]) : NaN;
    if (!match || !HOSTNAME.test(match[1]!) || port < 1 || port > 65535) {
      out.push(problem('hostport_invalid', `hostport "${hostport}" must be hostname:port with a port 1..65535, e.g. ${https ? 'api.example.com:443' : '1.tcp.example.com:20022'}`, ctx.at(['hostports', i])));
    } else if (https && port !== 443) {
      out.push(problem('hostport_invalid', `HTTPS edges serve only port 443; write ${match[1]}:443 instead of "${hostport}"`, ctx.at(['hostports', i])));
    }
  });
  return out;
}

/** One unique key per hostport (lowercased), so no two edges of a kind claim the same one. */
export const hostportKeys = (normal: Spec) =>
  ((normal.hostports as string[] | undefined) ?? []).map((h, i) => ({
    key: `hostport:${h.toLowerCase()}`,
    path: ['hostports', i] as (string | number)[],
    code: 'duplicate_hostport' as const,
  }));
