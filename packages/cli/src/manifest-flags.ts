/**
 * Flags of the commands that read manifests (validate, plan, apply, drift), and how they become
 * the engine's reading options: the file size limit, and warnings printed on stderr.
 */
import { Flags } from '@oclif/core';
import { DEFAULT_MAX_FILE_SIZE, type EngineOptions } from '@gatehouse/engine/core';
import { formatProblem } from './output.js';
import { isVerbose, noteWriter } from './request-log.js';

const UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  k: 1024,
  kb: 1024,
  kib: 1024,
  m: 1024 ** 2,
  mb: 1024 ** 2,
  mib: 1024 ** 2,
  g: 1024 ** 3,
  gb: 1024 ** 3,
  gib: 1024 ** 3,
};

/** `10MB`, `512 KiB`, `1048576` -> bytes (units are powers of 1024); undefined when malformed. */
function parseSize(text: string): number | undefined {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(text);
  const unit = match ? UNITS[match[2]!.toLowerCase()] : undefined;
  if (!match || unit === undefined) return undefined;
  const bytes = Math.floor(Number(match[1]) * unit);
  return bytes > 0 ? bytes : undefined;
}

export const manifestFlags = {
  'max-file-size': Flags.custom<number>({
    description: 'refuse manifest files larger than this (bytes, or with a unit: 512KB, 10MB, 1GB)',
    default: DEFAULT_MAX_FILE_SIZE,
    defaultHelp: async () => '10MB',
    parse: async (input) => {
      const bytes = parseSize(input);
      if (bytes === undefined) throw new Error(`"${input}" is not a size; give bytes or a number with KB, MB or GB`);
      return bytes;
    },
  })(),
};

/**
 * The engine's reading options for these flags; warnings go to `warn` (stderr), and with
 * `--verbose` (or GATEHOUSE_LOG=debug) so do notes of what the directory search skipped.
 */
export type ReadingOptions = Required<Pick<EngineOptions, 'maxFileSize' | 'onWarning' | 'onNote'>>;

export function readingOptions(flags: { 'max-file-size': number; verbose?: boolean | undefined }, warn: (line: string) => void): ReadingOptions {
  return {
    maxFileSize: flags['max-file-size'],
    onWarning: (warning) => warn(`warning: ${formatProblem(warning)}`),
    onNote: noteWriter(isVerbose(flags), warn),
  };
}
