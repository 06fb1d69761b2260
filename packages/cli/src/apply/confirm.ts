/**
 * The confirmation apply asks for on a terminal. Without a terminal (CI, a pipe) there is no
 * one to ask: the caller must pass `--yes`, otherwise apply refuses (exit 1).
 */
import { createInterface } from 'node:readline/promises';

/** Whether a person can answer: stdin and stderr (where the question goes) are terminals. */
export const canAsk = (): boolean => Boolean(process.stdin.isTTY && process.stderr.isTTY);

/** Asks on stderr; true only for the answer "yes" (as Terraform does). */
export async function confirm(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await rl.question(`${question} Only "yes" is accepted: `);
    return answer.trim().toLowerCase() === 'yes';
  } finally {
    rl.close();
  }
}
