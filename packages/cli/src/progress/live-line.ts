/**
 * The one line of a terminal that progress rewrites in place: drawn at the bottom of a
 * terminal stream, erased before anything else is printed there and drawn again after it, and
 * erased for good when the command ends, however it ends (`end`, an error, `process.exit`), so
 * that no half line or stale bar stays on the terminal.
 *
 * A line longer than the terminal is wide would wrap, and `\r` then erases only its last row:
 * every line is cut to the terminal's width first. The cursor is never hidden (a process killed
 * while it is hidden would leave the terminal without one).
 *
 * Whatever writes to the terminal while a line is live (a `--verbose` request line, a warning)
 * writes through `printAbove`, which keeps the line below what it prints.
 */

export interface TerminalStream {
  write(text: string): unknown;
  /** The terminal's width in columns, when known. */
  columns?: number | undefined;
}

/** Erases the current row: carriage return, then clear the whole line. */
const ERASE = '\r\x1b[2K';

/** The live line now on the terminal, if any (one terminal, one line). */
const live: { line?: LiveLine | undefined } = {};

/** Erases the live line, if one is drawn: run at the process's exit, however it exits. */
export function endLiveLine(): void {
  live.line?.end();
}

process.on('exit', endLiveLine);

export class LiveLine {
  #shown = '';
  #ended = false;

  constructor(private readonly stream: TerminalStream) {
    live.line?.end();
    live.line = this;
  }

  /** Draws `text` in place of what the line showed (cut to the terminal's width). */
  show(text: string): void {
    if (this.#ended) return;
    const line = fit(text, this.stream.columns);
    if (line === this.#shown) return;
    this.stream.write(`${ERASE}${line}`);
    this.#shown = line;
  }

  /** Runs `print` (which writes whole lines) with the line erased first and drawn again after. */
  around(print: () => void): void {
    const shown = this.#shown;
    this.#erase();
    print();
    if (!this.#ended && shown !== '') this.show(shown);
  }

  /** Erases the line for good. */
  end(): void {
    this.#erase();
    this.#ended = true;
    if (live.line === this) live.line = undefined;
  }

  #erase(): void {
    if (this.#shown === '') return;
    this.stream.write(ERASE);
    this.#shown = '';
  }
}

/** Writes `text` (whole lines) to `stream`, below the live line's place when one is drawn. */
export function printAbove(stream: TerminalStream, text: string): void {
  if (live.line) live.line.around(() => stream.write(text));
  else stream.write(text);
}

/**
 * `text` cut to fit one row of a terminal `columns` wide, one column short of it (a character
 * in the last column makes some terminals wrap). Counted in code points: progress lines are
 * plain text (names are sanitized), and the bar's blocks are one column each.
 */
export function fit(text: string, columns: number | undefined): string {
  const width = columns && columns > 1 ? columns - 1 : 79;
  const chars = [...text];
  return chars.length <= width ? text : `${chars.slice(0, Math.max(0, width - 1)).join('')}…`;
}
