/**
 * @oclif/core's values (Args, Command, Errors, Flags, toConfiguredId), for every module of the
 * CLI, in one place.
 */
export { Args, Command, Errors, Flags, toConfiguredId } from '@oclif/core';
