import { describe, expect, it } from 'vitest';
import { fishCompletion } from './fish.js';

describe('fishCompletion', () => {
  it('completes visible commands, their flags and the options of a flag', () => {
    const script = fishCompletion('gatehouse', [
      {
        id: 'plan',
        aliases: [],
        summary: "Show what apply'd change",
        flags: { format: { name: 'format', type: 'option', options: ['text', 'json'], description: 'output format' } },
      },
      { id: 'apply', aliases: [], summary: 'Apply', flags: { yes: { name: 'yes', type: 'boolean', char: 'y', description: 'no question' } } },
      { id: 'secret', aliases: [], hidden: true, summary: 'hidden', flags: {} },
    ] as never);
    expect(script).toContain(`complete -c gatehouse -n '__fish_use_subcommand' -a 'plan' -d 'Show what apply\\'d change'`);
    expect(script).toContain(`complete -c gatehouse -n '__fish_seen_subcommand_from plan' -l format -x -a 'text json' -d 'output format'`);
    expect(script).toContain(`complete -c gatehouse -n '__fish_seen_subcommand_from apply' -l yes -s y -d 'no question'`);
    expect(script).not.toContain('secret');
  });
});
