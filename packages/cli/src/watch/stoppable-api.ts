/**
 * The `LiveApi` a watch cycle reads through: the connection's, except that once `stop` is
 * aborted (SIGTERM) a listing ends after the page in flight, with `Stopped`. A cycle being read
 * then ends at its next page instead of listing everything first; writes pass through
 * unchanged (apply's own interrupt lets those in flight finish), and so do the lock's requests,
 * which must be able to release it after the stop.
 */
import type { LiveApi } from '@gatehouse/engine/core';
import { withListings } from '../live-listings.js';

/** A cycle ended by the stop signal. */
export class Stopped extends Error {
  constructor() {
    super('stopped (SIGTERM) while reading the live state');
    this.name = 'Stopped';
  }
}

export function stoppableApi(api: LiveApi, stop: AbortSignal): LiveApi {
  const check = () => {
    if (stop.aborted) throw new Stopped();
  };
  return withListings(api, async function* (pages) {
    check();
    for await (const page of pages) {
      yield page;
      check();
    }
  });
}
