import { PassThrough } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { turnBatched } from './turn-batched-stream.js';

/** A destination that records each `write` it is given. */
function recorder() {
  const writes: string[] = [];
  const stream = new PassThrough();
  stream.on('data', (chunk: Buffer) => writes.push(chunk.toString()));
  return { stream, writes };
}

describe('turnBatched', () => {
  it('writes the lines of one turn in one write, at the end of that turn', async () => {
    const { stream, writes } = recorder();
    const log = turnBatched(stream);
    log.write('{"n":1}\n');
    log.write('{"n":2}\n');
    log.write('{"n":3}\n');
    expect(writes).toEqual([]);
    await nextTurn();
    await nextTurn();
    expect(writes).toEqual(['{"n":1}\n{"n":2}\n{"n":3}\n']);

    log.write('{"n":4}\n');
    await nextTurn();
    await nextTurn();
    expect(writes).toEqual(['{"n":1}\n{"n":2}\n{"n":3}\n', '{"n":4}\n']);
  });

  it('flush() writes what is pending at once (before an exit), and nothing when nothing is', async () => {
    const written: string[] = [];
    const stream = new PassThrough();
    const write = stream.write.bind(stream);
    stream.write = ((chunk: string) => {
      written.push(chunk);
      return write(chunk);
    }) as typeof stream.write;
    const log = turnBatched(stream);
    log.flush();
    expect(written).toEqual([]);
    log.write('last line\n');
    log.flush();
    expect(written).toEqual(['last line\n']);
    await nextTurn();
    expect(written).toEqual(['last line\n']);
  });

  it('drops later lines once the reader is gone (EPIPE), and raises any other error', async () => {
    const { stream, writes } = recorder();
    const log = turnBatched(stream);
    stream.emit('error', Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
    log.write('after the reader left\n');
    await nextTurn();
    await nextTurn();
    expect(writes).toEqual([]);

    const other = new PassThrough();
    turnBatched(other);
    const raised: Error[] = [];
    // Once the batcher lets go of it, the error reaches the stream's other listeners (with
    // none, Node throws it, as it did before the batcher).
    other.on('error', (error) => raised.push(error));
    other.emit('error', Object.assign(new Error('write ENOSPC'), { code: 'ENOSPC' }));
    expect(raised.map((e) => e.message)).toContain('write ENOSPC');
  });
});
