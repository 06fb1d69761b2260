import { Flags } from '@oclif/core';
import { Command } from '../command.js';
import { versionInfo } from '../version.js';

/** `gatehouse version`: the version, the commit it was built from, and the platform. */
export default class Version extends Command {
  static override summary = 'Show the version of gatehouse, the git commit it was built from, and the Node.js and platform it runs on.';
  static override description =
    'The commit comes from git when gatehouse runs from a checkout, and from the build-info.json written when it was packed ' +
    'otherwise. --format json prints one JSON object with the fields name, version, commit (null when it cannot be known, ' +
    'with commit_unknown saying why), node, platform and arch.';
  static override flags = {
    format: Flags.string({ description: 'output format', options: ['text', 'json'], default: 'text' }),
  };
  static override examples = ['<%= config.bin %> version', '<%= config.bin %> version --format json'];

  async run(): Promise<void> {
    const { flags } = await this.parse(Version);
    const { commitUnknown, ...info } = versionInfo(this.config.root);
    if (flags.format === 'json') {
      this.log(JSON.stringify({ ...info, ...(commitUnknown ? { commit_unknown: commitUnknown } : {}) }, null, 2));
      return;
    }
    const commit = info.commit ? ` (commit ${info.commit.slice(0, 12)})` : ` (commit unknown: ${commitUnknown})`;
    this.log(`gatehouse ${info.version}${commit}, Node.js ${info.node} on ${info.platform}-${info.arch}`);
  }
}
