/**
 * Progress as the place it goes to can show it: on a terminal, a line rewritten in place (a bar
 * when the work's size is known) and redrawn every second, so the time left counts down while
 * requests wait for the budget; elsewhere (a CI log, a pipe), one line every 10 seconds, so a
 * long run says where it is without flooding the log; nothing when nothing should be printed.
 * Progress goes to stderr only: stdout is the command's output (a plan, a JSON document).
 */
import { LiveLine, type TerminalStream } from './live-line.js';

/** What progress shows now: `done` of `total` when the size is known, and a sentence. */
export interface ProgressView {
  done?: number;
  total?: number;
  text: string;
}

export type ProgressMode = 'terminal' | 'lines' | 'off';

/** How often a terminal line is redrawn, and how often a line is printed elsewhere. */
const REDRAW_MS = 1000;
const LINE_EVERY_MS = 10_000;
/** A terminal line appears only once the work has run this long: a quick plan shows no flash of a bar. */
const SHOW_AFTER_MS = 500;

const BAR_WIDTH = 16;

/**
 * The mode for `stream`: a bar on a terminal, lines every 10 s otherwise; off with
 * `quiet` (a `--verbose` run prints a line per request: a bar between them would flicker).
 * `GATEHOUSE_PROGRESS=off|lines|terminal` overrides it (for a terminal recorder, or tests).
 */
export function progressMode(stream: { isTTY?: boolean | undefined }, env: NodeJS.ProcessEnv = process.env, quiet = false): ProgressMode {
  const asked = env.GATEHOUSE_PROGRESS?.trim().toLowerCase();
  if (asked === 'off' || asked === 'lines' || asked === 'terminal') return asked;
  if (quiet) return 'lines';
  return stream.isTTY ? 'terminal' : 'lines';
}

/** `[██████░░░░░░░░░░]`: `done` of `total`, in BAR_WIDTH cells. */
export function bar(done: number, total: number): string {
  const filled = total > 0 ? Math.min(BAR_WIDTH, Math.floor((done / total) * BAR_WIDTH)) : BAR_WIDTH;
  return `[${'█'.repeat(filled)}${'░'.repeat(BAR_WIDTH - filled)}]`;
}

/** One status line, kept up to date while work runs; `stop` clears what it drew. */
export class StatusReporter {
  readonly #line: LiveLine | undefined;
  readonly #timer: ReturnType<typeof setInterval> | undefined;
  readonly #showAt: number;
  #first: ReturnType<typeof setTimeout> | undefined;
  #stopped = false;

  constructor(
    private readonly view: () => ProgressView,
    private readonly stream: TerminalStream,
    mode: ProgressMode,
    options: { showAfterMs?: number } = {},
  ) {
    this.#showAt = performance.now() + (options.showAfterMs ?? SHOW_AFTER_MS);
    if (mode === 'terminal') {
      this.#line = new LiveLine(stream);
      this.#timer = setInterval(() => this.update(), REDRAW_MS);
      // The first draw once the line is due, whether or not anything changes by then.
      if (this.#showAt > performance.now()) {
        this.#first = setTimeout(() => this.update(), Math.ceil(this.#showAt - performance.now()) + 1);
        this.#first.unref();
      } else this.update();
    } else if (mode === 'lines') {
      this.#timer = setInterval(() => this.#printLine(), LINE_EVERY_MS);
    }
    // Progress never keeps the process alive.
    this.#timer?.unref();
  }

  /** Draws the line again now (on a terminal): something changed. */
  update(): void {
    if (this.#stopped || !this.#line || performance.now() < this.#showAt) return;
    const view = this.view();
    const shown = view.total !== undefined && view.done !== undefined ? `${bar(view.done, view.total)} ${view.text}` : view.text;
    this.#line.show(shown);
  }

  /** Runs `print` (whole lines to the terminal) below nothing: the live line is kept under it. */
  around(print: () => void): void {
    if (this.#line && !this.#stopped) this.#line.around(print);
    else print();
  }

  /** Stops redrawing and erases the line; idempotent. */
  stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    clearInterval(this.#timer);
    clearTimeout(this.#first);
    this.#line?.end();
  }

  #printLine(): void {
    if (this.#stopped) return;
    this.stream.write(`progress: ${this.view().text}\n`);
  }
}

/** `<1 s`, `12 s`, `4m 52s`, `1h 05m`: a time left, as short as it reads well. */
export function formatDuration(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds < 1) return '<1 s';
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ${String(seconds % 60).padStart(2, '0')}s`;
  return `${Math.floor(minutes / 60)}h ${String(minutes % 60).padStart(2, '0')}m`;
}
