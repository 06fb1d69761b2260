/**
 * Write-only secrets: values the API accepts in requests but never returns (an event
 * destination's `aws_secret_access_key` reads back as null). gatehouse cannot compare what it
 * cannot read, so such a field is never a difference, never drift, and is written whenever the
 * object is written (the descriptor's rule).
 *
 * In a normal form the field holds a `WriteOnly` value on both sides: the manifest's secret
 * (desired) or `WriteOnly.UNKNOWN` (live). A WriteOnly has no enumerable properties and its
 * JSON form is absent (`toJSON` returns undefined), so the generic steps see equal content:
 * `canonicalJson` leaves it out (no changed field, no drift, no hash change) and a JSON patch
 * finds nothing to change. It is still a present, non-null value, so masking shows it as
 * `(sensitive)` and export puts an `${env:...}` placeholder where it stands. Only a
 * descriptor's calls read the secret, with `reveal`.
 */
export class WriteOnly {
  /** The live side: the server does not say. */
  static readonly UNKNOWN = new WriteOnly(undefined);
  readonly #secret: string | undefined;

  private constructor(secret: string | undefined) {
    this.#secret = secret;
    Object.freeze(this);
  }

  static of(secret: string): WriteOnly {
    return new WriteOnly(secret);
  }

  /** Absent from every JSON form: plans, saved plans, hashes and logs never carry it. */
  toJSON(): undefined {
    return undefined;
  }

  /** What `String(x)` or a template would print: never the secret. */
  toString(): string {
    return '(write-only)';
  }

  /** The secret to send; throws for the live side, which never knows it. */
  reveal(what: string): string {
    if (this.#secret === undefined) throw new Error(`${what} is write-only and unknown here; it comes from the manifest`);
    return this.#secret;
  }
}

/** A manifest's secret as a WriteOnly; a live value (always null) as UNKNOWN. */
export const writeOnly = (value: unknown): WriteOnly =>
  value instanceof WriteOnly ? value : typeof value === 'string' ? WriteOnly.of(value) : WriteOnly.UNKNOWN;

/** The secret of a normal-form field for a request body. */
export const reveal = (value: unknown, what: string): string =>
  value instanceof WriteOnly ? value.reveal(what) : typeof value === 'string' ? value : writeOnly(value).reveal(what);
