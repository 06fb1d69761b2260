/**
 * What progress needs of a client to say how far a run is and how long the rest takes: the
 * requests sent so far, and an estimate from its pace (`Transport.estimateMs`: the budget as
 * spent so far, how long answers have taken, the cap on requests in flight). An interface, so
 * that progress can be tested with a fake pace, and several clients (`--env all`) summed.
 */
import type { GatehouseClient } from '@gatehouse/client';

export interface PaceSource {
  /** Attempts sent so far. */
  requests(): number;
  /** About how long `n` more requests take at the client's pace. */
  estimateMs(n: number): number;
}

export const paceOf = (client: Pick<GatehouseClient, 'requests' | 'transport'>): PaceSource => ({
  requests: () => client.requests.total,
  estimateMs: (n) => client.transport.estimateMs(n),
});
