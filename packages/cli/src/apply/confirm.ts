/**
 * The confirmation apply asks for on a terminal. Without a terminal (CI, a pipe) there is no
 * one to ask: the caller must pass `--yes`, otherwise apply refuses (exit 1). Ctrl-C or
 * Ctrl-D (end of input) at the question is `PromptCancelled`, which apply reports as
 * "Apply cancelled." (exit 1), never as a stack trace.
 */
import { createInterface } from 'node:readline';

/** Whether a person can answer: stdin and stderr (where the question goes) are terminals. */
export const canAsk = (): boolean => Boolean(process.stdin.isTTY && process.stderr.isTTY);

/** The person left the question with Ctrl-C or Ctrl-D instead of answering. */
export class PromptCancelled extends Error {
  constructor() {
    super('Apply cancelled.');
    this.name = 'PromptCancelled';
  }
}

export interface PromptStreams {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
}

/**
 * Asks on `output` (stderr by default); true only for the answer "yes" (as Terraform does).
 * Rejects with `PromptCancelled` on Ctrl-C (readline's SIGINT on a terminal, or the process's
 * own SIGINT/SIGTERM) and on the end of input (Ctrl-D).
 */
export function confirm(question: string, streams: PromptStreams = { input: process.stdin, output: process.stderr }): Promise<boolean> {
  const rl = createInterface({ input: streams.input, output: streams.output, terminal: Boolean((streams.input as { isTTY?: boolean }).isTTY) });
  return new Promise<boolean>((resolve, reject) => {
    let answered = false;
    const cancel = () => {
      if (answered) return;
      answered = true;
      streams.output.write('\n');
      reject(new PromptCancelled());
    };
    const onSignal = () => {
      cancel();
      rl.close();
    };
    rl.on('SIGINT', onSignal);
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    rl.on('close', () => {
      process.removeListener('SIGINT', onSignal);
      process.removeListener('SIGTERM', onSignal);
      cancel();
    });
    rl.question(`${question} Only "yes" is accepted: `, (answer) => {
      answered = true;
      rl.close();
      resolve(answer.trim().toLowerCase() === 'yes');
    });
  });
}
