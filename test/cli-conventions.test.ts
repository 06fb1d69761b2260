/**
 * The CLI's conventions, through the built command as a user types it: help, version, did-you-
 * mean for commands and flags, -y, shell completion, and errors printed as one plain line. The
 * processes run at once in beforeAll (each start is independent).
 */
import { execFileSync } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from './helpers/cli.js';

const CASES = {
  help: ['help'],
  helpPlan: ['help', 'plan'],
  dashH: ['plan', '-h'],
  version: ['version'],
  versionJson: ['version', '--format', 'json'],
  dashV: ['-v'],
  dashDashVersion: ['--version'],
  typoCommand: ['plna'],
  typoFlag: ['plan', '--fromat', 'json'],
  applyHelp: ['apply', '--help'],
  bash: ['completion', 'bash'],
  zsh: ['completion', 'zsh'],
  fish: ['completion', 'fish'],
  badUrl: ['plan', '--api-url', 'ftp://api.example.com/a/very/long/path/that/would/have/been/wrapped/at/eighty/columns', '--api-key', 'k'],
} as const;

const results = {} as Record<keyof typeof CASES, CliResult>;

beforeAll(async () => {
  const entries = await Promise.all(Object.entries(CASES).map(async ([name, args]) => [name, await runCli(args)] as const));
  Object.assign(results, Object.fromEntries(entries));
});

describe('help', () => {
  it('`gatehouse help` lists every command, `help plan` and `plan -h` show the command', () => {
    expect(results.help.code).toBe(0);
    for (const command of ['apply', 'completion', 'drift', 'export', 'plan', 'serve', 'validate', 'version']) {
      expect(results.help.stdout).toMatch(new RegExp(`^  ${command} `, 'm'));
    }
    expect(results.helpPlan.code).toBe(0);
    expect(results.helpPlan.stdout).toContain('$ gatehouse plan [PATH...]');
    expect(results.dashH.stdout).toBe(results.helpPlan.stdout);
  });

  it('apply takes -y for --yes; descriptions are paragraphs, not lines broken mid-sentence', () => {
    expect(results.applyHelp.stdout).toContain('-y, --yes');
    // A description line ends a sentence or is filled to the width: none ends after a short word run.
    const description = results.applyHelp.stdout.split('DESCRIPTION\n')[1]!.split('\n\nEXAMPLES')[0]!;
    const lines = description.split('\n').filter((l) => l.trim() !== '');
    for (const [i, line] of lines.entries()) {
      const next = lines[i + 1];
      if (next && !/[.:;)]$/.test(line)) expect(line.length + 1 + next.trim().split(' ')[0]!.length).toBeGreaterThan(80);
    }
  });
});

describe('version', () => {
  it('-v and --version print the short form; `version` adds the commit, as text or JSON', () => {
    expect(results.dashV.code).toBe(0);
    expect(results.dashV.stdout).toMatch(/^@gatehouse\/cli\/\d+\.\d+\.\d+ \S+-\S+ node-v\d+/);
    expect(results.dashDashVersion.stdout).toBe(results.dashV.stdout);
    const commit = execFileSync('git', ['rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
    expect(results.version.stdout).toContain(`(commit ${commit.slice(0, 12)})`);
    expect(JSON.parse(results.versionJson.stdout)).toMatchObject({ name: '@gatehouse/cli', commit, node: process.version });
  });
});

describe('mistakes', () => {
  it('an unknown command names the closest one and exits 1, as every error does (the root help says so)', () => {
    expect(results.typoCommand.code).toBe(1);
    expect(results.help.stdout).toContain('1 an error of any kind, a usage mistake or an unknown command included');
    expect(results.typoCommand.stderr).toBe(
      'Error: "plna" is not a gatehouse command. Did you mean "gatehouse plan"? Run "gatehouse help" for the list of commands.\n',
    );
  });

  it('an unknown flag names the closest one, exit 1', () => {
    expect(results.typoFlag.code).toBe(1);
    expect(results.typoFlag.stderr).toBe('Error: unknown flag --fromat; did you mean --format?\nSee "gatehouse plan --help" for the flags.\n');
  });

  it('errors are one line, never wrapped or prefixed with ›', () => {
    expect(results.badUrl.code).toBe(1);
    const lines = results.badUrl.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^Error: .*ftp:\/\/api\.example\.com\/a\/very\/long\/path\/that\/would\/have\/been\/wrapped\/at\/eighty\/columns/);
    expect(results.badUrl.stderr).not.toContain('›');
  });
});

describe('completion', () => {
  it('prints bash, zsh and fish scripts that know the commands and their flags', () => {
    for (const result of [results.bash, results.zsh, results.fish]) {
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('validate');
      expect(result.stdout).toContain('detailed-exitcode');
      expect(result.stdout).not.toContain('<%=');
    }
    execFileSync('bash', ['-n'], { input: results.bash.stdout });
    expect(results.zsh.stdout.startsWith('#compdef gatehouse')).toBe(true);
    expect(results.fish.stdout).toContain("complete -c gatehouse -n '__fish_seen_subcommand_from plan' -l format -x -a 'text json markdown html'");
  });
});
