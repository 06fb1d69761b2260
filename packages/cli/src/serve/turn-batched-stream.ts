/**
 * A log destination that writes the lines of one event-loop turn together, in one `write` to
 * the stream underneath, at the end of that turn (`setImmediate`, which runs after the turn's
 * I/O callbacks).
 *
 * Why: `gatehouse serve` writes a line per request. pino's own stdout destination handed each
 * line to libuv's thread pool (an `fs.write` per line), which cost the server some 11 us of
 * CPU per POST, a sixth of a write's whole cost; the answers of one group commit are sent in
 * one turn, so one write per turn covers several lines.
 *
 * Nothing waits longer than the turn it was logged in, so a line still appears as its request
 * is answered. `flush()` writes what is pending at once: call it before the process exits
 * (`process.exit` runs no more turns). A process killed outright (SIGKILL) loses only the
 * lines of the turn it was killed in, which a synchronous logger would lose as well if killed
 * a moment earlier.
 *
 * A reader that goes away (`gatehouse serve | head`: EPIPE) ends the log, not the server, as
 * pino's own destination does: later lines are dropped. Any other error of the stream is
 * raised as before. Node writes its stdout synchronously to files and, on Linux, to pipes: a
 * reader that stops reading without going away (a paused pager) holds the server once the
 * pipe is full, as the pretty format's synchronous stream always did, where pino's own
 * destination kept the lines in memory without bound instead.
 */
export interface TurnBatchedStream {
  /** pino's destination contract: takes one serialized line (with its newline). */
  write(line: string): boolean;
  /** Writes the pending lines now, if any. */
  flush(): void;
}

/** What a log is written to: a writable stream's `write` and its error events (Node's streams, sonic-boom). */
export interface LogDestination {
  write(text: string): unknown;
  on(event: 'error', listener: (error: NodeJS.ErrnoException) => void): unknown;
  off(event: 'error', listener: (error: NodeJS.ErrnoException) => void): unknown;
  emit(event: 'error', error: Error): unknown;
}

export function turnBatched(destination: LogDestination): TurnBatchedStream {
  let pending = '';
  let scheduled = false;
  let readerGone = false;
  const onError = (error: NodeJS.ErrnoException): void => {
    if (error.code === 'EPIPE') {
      readerGone = true;
      pending = '';
      return;
    }
    destination.off('error', onError);
    destination.emit('error', error);
  };
  destination.on('error', onError);
  const flush = (): void => {
    scheduled = false;
    if (pending === '' || readerGone) return;
    const text = pending;
    pending = '';
    destination.write(text);
  };
  return {
    write(line: string): boolean {
      if (readerGone) return true;
      pending += line;
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
      return true;
    },
    flush,
  };
}
