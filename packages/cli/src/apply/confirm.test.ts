import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { confirm, PromptCancelled } from './confirm.js';

const streams = () => ({ input: new PassThrough(), output: new PassThrough() });

describe('confirm', () => {
  it('is true for "yes" only', async () => {
    const yes = streams();
    const asked = confirm('Apply?', yes);
    yes.input.write(' YES \n');
    await expect(asked).resolves.toBe(true);
    const no = streams();
    const refused = confirm('Apply?', no);
    no.input.write('y\n');
    await expect(refused).resolves.toBe(false);
  });

  it('rejects with PromptCancelled ("Apply cancelled.") on Ctrl-D, the end of input', async () => {
    const s = streams();
    const asked = confirm('Apply?', s);
    s.input.end();
    await expect(asked).rejects.toBeInstanceOf(PromptCancelled);
    await expect(asked).rejects.toThrow('Apply cancelled.');
  });

  it('rejects with PromptCancelled on SIGINT while waiting for the answer', async () => {
    const s = streams();
    const asked = confirm('Apply?', s);
    process.emit('SIGINT');
    await expect(asked).rejects.toBeInstanceOf(PromptCancelled);
    expect(process.listenerCount('SIGTERM')).toBe(0);
  });
});
