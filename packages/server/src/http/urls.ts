/**
 * Absolute URIs under the server's base URL, for an object's own `uri` and for the `Ref`s
 * (`{id, uri}`) that responses carry in place of the ids that requests send.
 */
import type { Ref } from '@gatehouse/schemas';

/** Path of the collection a referenced id belongs to, chosen by the id's prefix. */
const REF_PATHS: Record<string, string> = {
  ipp: '/ip_policies',
  ipr: '/ip_policy_rules',
  ipx: '/ip_restrictions',
  bot: '/bot_users',
  edghts: '/edges/https',
  edgtcp: '/edges/tcp',
  bkdtg: '/backends/tunnel_group',
  bkdfo: '/backends/failover',
  bkdwd: '/backends/weighted',
  bkdhr: '/backends/http_response',
  bkdsc: '/backends/static',
  // Static backends created before the service's path was known keep their ids (db/migrations.ts).
  bkdsa: '/backends/static',
  edgtls: '/edges/tls',
  rd: '/reserved_domains',
  ra: '/reserved_addrs',
  ca: '/certificate_authorities',
  ed: '/event_destinations',
  esb: '/event_subscriptions',
  ak: '/api_keys',
};

export class Urls {
  private base: string;

  constructor(baseUrl: string) {
    this.base = baseUrl.replace(/\/+$/, '');
  }

  /**
   * Sets the base URL once it is known: a server told to listen on port 0 learns its port
   * only after listening, before it answers any request.
   */
  rebase(baseUrl: string): void {
    this.base = baseUrl.replace(/\/+$/, '');
  }

  /** Absolute URL of a path under the base URL. */
  of(path: string): string {
    return `${this.base}${path}`;
  }

  /** A `Ref` to the object with this id; its collection is known from the id's prefix. */
  ref(id: string): Ref {
    const prefix = id.slice(0, id.indexOf('_'));
    const path = REF_PATHS[prefix];
    return { id, uri: path ? `${this.base}${path}/${id}` : `${this.base}/${id}` };
  }

  refs(ids: readonly string[]): Ref[] {
    return ids.map((id) => this.ref(id));
  }
}
