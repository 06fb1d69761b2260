import { Flags } from '@oclif/core';
import { Command } from '../command.js';
import { CliError } from '../errors.js';
import { parseDuration } from '../duration.js';
import { colourEnabled } from '../output.js';
import { chooseLogFormat, LOG_FORMATS, LOG_LEVELS, serverLogger } from '../serve/logger.js';
import { DEFAULT_DB_PATH, DEFAULT_HOST, DEFAULT_PORT } from '../server/defaults.js';
import { loadServer } from '../server/load.js';

/**
 * `gatehouse serve`: runs the reference management API until SIGINT or SIGTERM. The server is
 * an optional dependency of the CLI, imported when this command runs (never at start-up). Its
 * user guide is docs/server.md.
 */
export default class Serve extends Command {
  static override summary = 'Run the reference management API server.';
  static override description =
    'Serves the management API over HTTP, persisting to SQLite: the reference server that tests, demos and CI pipelines ' +
    'reconcile against. With no API key given or stored, generates one, stores it and prints it once. The address, the ' +
    'key and the other start-up lines go to stdout with pretty logs (a terminal), and to stderr with JSON logs, so that ' +
    'stdout then holds JSON lines only.';
  static override examples = ['<%= config.bin %> serve', '<%= config.bin %> serve --port 9000 --db :memory: --api-key secret-key'];

  static override flags = {
    host: Flags.string({ description: 'address to listen on', default: DEFAULT_HOST }),
    port: Flags.integer({ description: 'port to listen on', env: 'GATEHOUSE_PORT', default: DEFAULT_PORT, min: 0, max: 65535 }),
    db: Flags.string({ description: 'SQLite database file, or :memory:', env: 'GATEHOUSE_DB', default: DEFAULT_DB_PATH }),
    'api-key': Flags.string({
      description: 'API key to accept (repeatable; GATEHOUSE_API_KEYS takes a comma-separated list)',
      multiple: true,
    }),
    'base-url': Flags.string({ description: 'absolute URL that resource `uri` fields are built under' }),
    'rate-limit': Flags.string({
      description: "requests allowed per key in any rolling window, e.g. 120/60s, the service's own limit (off by default)",
    }),
    'max-concurrent': Flags.integer({
      description: 'requests allowed in flight at once per key; more are answered 429, as the service does (off by default)',
      min: 1,
    }),
    latency: Flags.custom<number>({
      description: 'delay every answer by this long, as a network would, e.g. 50ms (off by default)',
      parse: async (input) => {
        const ms = parseDuration(input);
        if (ms === undefined) throw new Error(`"${input}" is not a duration; give a number with ms, s or m (50ms, 1s)`);
        return ms;
      },
    })(),
    'event-sink': Flags.string({
      description: 'JSON-lines file every event delivery is appended to, to watch events arrive (deliveries are also listed at GET /_admin/deliveries)',
      env: 'GATEHOUSE_EVENT_SINK',
    }),
    'log-level': Flags.string({
      description: 'least severe log records written (info: one line per request)',
      options: [...LOG_LEVELS],
      env: 'GATEHOUSE_LOG_LEVEL',
      default: 'info',
      helpGroup: 'LOG',
    }),
    'log-format': Flags.string({
      description: 'json: one JSON object per line; pretty: readable lines (default: pretty on a terminal, json otherwise)',
      options: [...LOG_FORMATS],
      env: 'GATEHOUSE_LOG_FORMAT',
      helpGroup: 'LOG',
    }),
    // Tests only (hidden): see packages/server/src/http/faults.ts.
    'reservation-check': Flags.boolean({
      description:
        'refuse edge hostports that are not reserved (a reserved domain, a reserved TCP address), as the service does; --no-reservation-check for databases and tests made before reservations',
      default: true,
      allowNo: true,
    }),
    'inject-faults': Flags.string({ description: 'TESTS ONLY: fraction of requests to fail, 0..1', hidden: true }),
    'fault-seed': Flags.string({ description: 'TESTS ONLY: seed making injected faults deterministic', hidden: true }),
    'fault-modes': Flags.string({
      description: 'TESTS ONLY: comma-separated subset of before,after-503,after-drop',
      hidden: true,
    }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Serve);
    const apiKeys = flags['api-key'] ?? splitKeys(process.env.GATEHOUSE_API_KEYS);
    // The server is an optional dependency: without it, exit 1 saying how to install it.
    const server = await loadServer('serve').catch((error: unknown) => {
      if (error instanceof CliError) this.error(error.message, { exit: 1 });
      throw error;
    });
    const refusedAs = <T>(flag: string, parse: () => T): T => {
      try {
        return parse();
      } catch (error) {
        this.error(`${flag}: ${(error as Error).message}`, { exit: 1 });
      }
    };
    const rateLimit = flags['rate-limit'] === undefined ? undefined : refusedAs('--rate-limit', () => server.parseRateLimit(flags['rate-limit']!));
    const faultRate = flags['inject-faults'];
    const faults =
      faultRate === undefined
        ? undefined
        : refusedAs('--inject-faults', () => server.parseFaultInjection(faultRate, flags['fault-seed'], flags['fault-modes']));
    const logFormat = chooseLogFormat(flags['log-format']);
    const { logger } = await serverLogger(flags['log-level'], logFormat, colourEnabled());
    // With JSON logs stdout is one JSON object per line, for a log collector: what is said to a
    // person (the address, the generated key, shutting down) goes to stderr. Pretty logs share
    // stdout with it, as a terminal shows them.
    const say = logFormat === 'json' ? (line: string) => this.logToStderr(line) : (line: string) => this.log(line);
    const running = await server.startServer({
      logger,
      host: flags.host,
      port: flags.port,
      db: flags.db,
      apiKeys,
      ...(flags['base-url'] ? { baseUrl: flags['base-url'] } : {}),
      ...(rateLimit ? { rateLimit } : {}),
      ...(flags['max-concurrent'] !== undefined ? { maxConcurrent: flags['max-concurrent'] } : {}),
      ...(flags.latency ? { latencyMs: flags.latency } : {}),
      ...(flags['event-sink'] !== undefined ? { delivery: { sinkPath: flags['event-sink'] } } : {}),
      ...(faults ? { faults } : {}),
      reservationCheck: flags['reservation-check'],
    });

    say(`gatehouse reference API listening on ${running.url}`);
    say(`  database: ${flags.db}`);
    if (flags['event-sink'] !== undefined) say(`  event sink: ${flags['event-sink']}`);
    if (!flags['reservation-check']) say('  reservation check: off (edge hostports need no reserved domain or address)');
    if (rateLimit) say(`  rate limit: ${flags['rate-limit']} per key, rolling`);
    if (flags['max-concurrent'] !== undefined) say(`  concurrent requests: at most ${flags['max-concurrent']} per key`);
    if (flags.latency) say(`  latency: ${flags.latency} ms before every answer`);
    if (faults) {
      say(`  FAULT INJECTION ON (tests only): ${faults.rate} of requests fail, seed ${faults.seed ?? 'random'}`);
    }
    if (running.generatedKey) {
      say(`  API key (generated, shown once): ${running.generatedKey}`);
    } else if (apiKeys.length > 0) {
      say(`  API keys: ${apiKeys.length} given`);
    } else {
      say(`  API keys: ${running.app.apiKeys.storedCount()} stored in the database`);
    }

    let stopping = false;
    const stop = async (signal: string) => {
      if (stopping) return;
      stopping = true;
      say(`${signal}: finishing in-flight requests and closing the database`);
      await running.close();
      process.exit(0);
    };
    process.once('SIGINT', () => void stop('SIGINT'));
    process.once('SIGTERM', () => void stop('SIGTERM'));
  }
}

function splitKeys(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((k) => k.trim())
    .filter((k) => k.length > 0);
}
