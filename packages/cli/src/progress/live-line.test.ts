import { describe, expect, it } from 'vitest';
import { endLiveLine, fit, LiveLine, printAbove } from './live-line.js';
import { bar, formatDuration, progressMode } from './status.js';

const terminal = (columns = 40) => {
  const written: string[] = [];
  return { written, stream: { write: (t: string) => written.push(t), columns } };
};

describe('the live line', () => {
  it("is cut to the terminal's width, so that it never wraps (a wrapped line cannot be erased whole)", () => {
    expect(fit('x'.repeat(39), 40)).toBe('x'.repeat(39));
    expect(fit('x'.repeat(45), 40)).toBe(`${'x'.repeat(38)}…`);
    expect([...fit(`${'█'.repeat(50)}`, 20)]).toHaveLength(19);
  });

  it('keeps itself below what is printed, and leaves nothing behind when it ends', () => {
    const { written, stream } = terminal();
    const line = new LiveLine(stream);
    line.show('3/10 changes');
    line.show('3/10 changes');
    printAbove(stream, 'request GET /bot_users status=200\n');
    line.end();
    printAbove(stream, 'after\n');
    expect(written).toEqual(['\r\x1b[2K3/10 changes', '\r\x1b[2K', 'request GET /bot_users status=200\n', '\r\x1b[2K3/10 changes', '\r\x1b[2K', 'after\n']);
    line.show('not drawn once ended');
    expect(written.at(-1)).toBe('after\n');
  });

  it('is erased when the process exits without ending it', () => {
    const { written, stream } = terminal();
    new LiveLine(stream).show('halfway');
    expect(process.listeners('exit')).toContain(endLiveLine);
    endLiveLine();
    expect(written).toEqual(['\r\x1b[2Khalfway', '\r\x1b[2K']);
  });
});

describe('progress', () => {
  it('a bar on a terminal, lines elsewhere, as GATEHOUSE_PROGRESS says when set', () => {
    expect(progressMode({ isTTY: true }, {})).toBe('terminal');
    expect(progressMode({ isTTY: false }, {})).toBe('lines');
    expect(progressMode({ isTTY: true }, {}, true)).toBe('lines');
    expect(progressMode({ isTTY: true }, { GATEHOUSE_PROGRESS: 'off' })).toBe('off');
    expect(bar(0, 4)).toBe(`[${'░'.repeat(16)}]`);
    expect(bar(3, 4)).toBe(`[${'█'.repeat(12)}${'░'.repeat(4)}]`);
    expect(bar(4, 4)).toBe(`[${'█'.repeat(16)}]`);
  });

  it('says the time left as short as it reads well', () => {
    expect(formatDuration(300)).toBe('<1 s');
    expect(formatDuration(12_400)).toBe('12 s');
    expect(formatDuration(292_000)).toBe('4m 52s');
    expect(formatDuration(3_900_000)).toBe('1h 05m');
  });
});
