/** The flags that choose a project file and an environment, shared by every command. */
import { Flags } from '@oclif/core';

export const environmentFlags = {
  env: Flags.string({
    description: 'environment of gatehouse.yaml to use (its overlays, variables, API and stack)',
    env: 'GATEHOUSE_ENV',
    helpGroup: 'ENVIRONMENT',
  }),
  config: Flags.string({
    description: 'project file to use instead of the gatehouse.yaml found walking up from the current directory',
    env: 'GATEHOUSE_CONFIG',
    helpGroup: 'ENVIRONMENT',
  }),
};
