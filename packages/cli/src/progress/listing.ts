/**
 * Progress of reading live state (plan, drift, and apply before it writes): how many of the
 * collections a plan lists are read, the requests and objects so far, and at least how long the
 * rest takes at the client's pace. Counted by a `LiveApi` that wraps the one the engine reads
 * through, so the engine knows nothing of progress.
 *
 * How many pages a collection has is known only once it is read (the API gives no count), so
 * the time left is a lower bound: one request per collection not read yet.
 */
import { KINDS, type ApiObject, type LiveApi } from '@gatehouse/engine/core';
import { withListings } from '../live-listings.js';
import type { PaceSource } from './pace-source.js';
import type { TerminalStream } from './live-line.js';
import { formatDuration, StatusReporter, type ProgressMode, type ProgressView } from './status.js';

/** How many collections a plan lists (every kind's `observe.lists`). */
const LISTED_COLLECTIONS = KINDS.reduce((n, d) => n + ('lists' in d.observe ? d.observe.lists.length : 0), 0);

export class ListingProgress {
  #finished = 0;
  #objects = 0;

  constructor(
    readonly pace: PaceSource,
    /** Told after each page, to redraw. */
    private readonly onChange: () => void = () => undefined,
  ) {}

  /** `api` with its listings counted. */
  wrap(api: LiveApi): LiveApi {
    return withListings(api, (pages) => this.#count(pages));
  }

  get finished(): number {
    return this.#finished;
  }

  /** At least how long the listing still takes: a request for each collection not read yet. */
  leftMs(): number {
    return this.pace.estimateMs(Math.max(0, LISTED_COLLECTIONS - this.#finished));
  }

  get objects(): number {
    return this.#objects;
  }
  async *#count(pages: AsyncIterable<readonly ApiObject[]>): AsyncIterable<readonly ApiObject[]> {
    for await (const page of pages) {
      this.#objects += page.length;
      this.onChange();
      yield page;
    }
    this.#finished += 1;
    this.onChange();
  }
}

/**
 * The progress of reading live state, for one target or several at once (`--env all`): the
 * collections read of all, the requests and objects so far, and at least how long the slowest
 * still takes. `stop` when the reading is over.
 */
export class ReadingProgress {
  readonly #listings: ListingProgress[] = [];
  readonly #status: StatusReporter;

  constructor(stream: TerminalStream, mode: ProgressMode) {
    this.#status = new StatusReporter(() => this.view(), stream, mode);
  }

  /** Counts the listing of one client's API (`wrap` it). */
  add(pace: PaceSource): ListingProgress {
    const listing = new ListingProgress(pace, () => this.#status.update());
    this.#listings.push(listing);
    return listing;
  }

  view(): ProgressView {
    const lists = this.#listings.length * LISTED_COLLECTIONS;
    const finished = this.#listings.reduce((n, l) => n + l.finished, 0);
    const requests = this.#listings.reduce((n, l) => n + l.pace.requests(), 0);
    const objects = this.#listings.reduce((n, l) => n + l.objects, 0);
    const leftMs = Math.max(0, ...this.#listings.map((l) => l.leftMs()));
    if (lists === 0) return { text: 'reading live state' };
    const left = finished >= lists ? '' : `, ≥${formatDuration(leftMs)} left`;
    const of = this.#listings.length > 1 ? ` of ${this.#listings.length} targets` : '';
    return { done: finished, total: lists, text: `${finished}/${lists} lists read${of}, ${plural(requests, 'request')}, ${plural(objects, 'object')}${left}` };
  }

  stop(): void {
    this.#status.stop();
  }
}

/** `1 request`, `1,234 objects`. */
export const plural = (n: number, noun: string): string => `${n.toLocaleString('en-US')} ${noun}${n === 1 ? '' : 's'}`;
