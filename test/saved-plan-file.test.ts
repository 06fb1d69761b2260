/**
 * What `apply --plan FILE` reads, through the built CLI: a saved plan, and nothing else. The
 * file is read before any connection is made, so no server is needed: every case here fails
 * with `plan_file`, naming the file, and writes nothing. A device that never ends (/dev/zero)
 * is read only up to the saved-plan limit, never until the memory runs out.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from './helpers/cli.js';

let dir: ReturnType<typeof tempDir>;
const env = { GATEHOUSE_API_URL: 'embedded' };

beforeAll(() => {
  dir = tempDir('gatehouse-saved-plan-');
});
afterAll(() => dir?.cleanup());

describe('apply --plan FILE', () => {
  it('refuses a file that is not a saved plan (a manifest named by mistake)', async () => {
    const manifest = join(dir.path, 'bots.yaml');
    writeFileSync(manifest, 'kind: BotUser\nname: ci\nspec:\n  active: true\n');
    const result = await runCli(['apply', '--plan', manifest, '--yes'], { env });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`cannot read the saved plan ${manifest}:`);
  });

  it('refuses a file that does not exist, by its error code', async () => {
    const missing = join(dir.path, 'missing.json');
    const result = await runCli(['apply', '--plan', missing, '--yes'], { env });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`cannot read the saved plan ${missing}: ENOENT`);
  });

  it('reads a device without an end (/dev/zero) only up to the limit, and refuses it', async () => {
    if (process.platform !== 'linux') return;
    const result = await runCli(['apply', '--plan', '/dev/zero', '--yes'], { env });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('cannot read the saved plan /dev/zero: it is over 256 MiB, more than any plan gatehouse saves');
  });
});
