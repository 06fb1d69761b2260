import { Flags } from '../oclif.js';
import { Command } from '../command.js';
import { colourEnabled } from '../output.js';
import { chooseLogFormat, LOG_FORMATS, LOG_LEVELS } from '../serve/logger.js';
import { ServingRefused, startServingThread, type ServingThread } from '../serve/thread.js';
import { DEFAULT_DB_PATH, DEFAULT_HOST, DEFAULT_PORT } from '../server/defaults.js';

/**
 * `gatehouse serve`: runs the reference management API until SIGINT or SIGTERM. The server is
 * an optional dependency of the CLI, imported when this command runs (never at start-up), in
 * the thread it serves from (serve/thread.ts).
 */
export default class Serve extends Command {
  static override summary = 'Run the reference management API server.';
  static override description =
    'Serves the management API over HTTP, persisting to SQLite: the reference server that tests, demos and CI pipelines ' +
    'reconcile against. With no API key given or stored, generates one, stores it and prints it once.';
  static override examples = [
    '<%= config.bin %> serve',
    '<%= config.bin %> serve --port 9000 --db :memory: --api-key secret-key',
  ];

  static override flags = {
    host: Flags.string({ description: 'address to listen on', default: DEFAULT_HOST }),
    port: Flags.integer({ description: 'port to listen on', env: 'GATEHOUSE_PORT', default: DEFAULT_PORT, min: 0, max: 65535 }),
    db: Flags.string({ description: 'SQLite database file, or :memory:', env: 'GATEHOUSE_DB', default: DEFAULT_DB_PATH }),
    'api-key': Flags.string({
      description: 'API key to accept (repeatable; GATEHOUSE_API_KEYS takes a comma-separated list)',
      multiple: true,
    }),
    'base-url': Flags.string({ description: 'absolute URL that resource `uri` fields are built under' }),
    'rate-limit': Flags.string({ description: 'requests allowed per key and window, e.g. 120/60s (off by default)' }),
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
        "refuse edge hostports that are not reserved (a reserved domain, a reserved TCP address), as the service does; --no-reservation-check for databases and tests made before reservations",
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
    const faults = flags['inject-faults'];
    let server: ServingThread;
    try {
      // The server runs in a thread of its own, without the CLI's code (serve/thread.ts says why).
      server = await startServingThread({
        host: flags.host,
        port: flags.port,
        db: flags.db,
        apiKeys,
        ...(flags['base-url'] ? { baseUrl: flags['base-url'] } : {}),
        ...(flags['rate-limit'] ? { rateLimit: flags['rate-limit'] } : {}),
        ...(flags['event-sink'] !== undefined ? { eventSink: flags['event-sink'] } : {}),
        ...(faults ? { faults: { rate: faults, seed: flags['fault-seed'], modes: flags['fault-modes'] } } : {}),
        reservationCheck: flags['reservation-check'],
        logLevel: flags['log-level'],
        logFormat: chooseLogFormat(flags['log-format']),
        colour: colourEnabled(),
      });
    } catch (error) {
      if (error instanceof ServingRefused) this.error(error.message, { exit: 1 });
      throw error;
    }

    this.log(`gatehouse reference API listening on ${server.url}`);
    this.log(`  database: ${flags.db}`);
    if (flags['event-sink'] !== undefined) this.log(`  event sink: ${flags['event-sink']}`);
    if (!flags['reservation-check']) this.log('  reservation check: off (edge hostports need no reserved domain or address)');
    if (server.faults) {
      this.log(`  FAULT INJECTION ON (tests only): ${server.faults.rate} of requests fail, seed ${server.faults.seed ?? 'random'}`);
    }
    if (server.generatedKey) {
      this.log(`  API key (generated, shown once): ${server.generatedKey}`);
    } else if (apiKeys.length > 0) {
      this.log(`  API keys: ${apiKeys.length} given`);
    } else {
      this.log(`  API keys: ${server.storedKeyCount} stored in the database`);
    }

    let stopping = false;
    const stop = async (signal: string) => {
      if (stopping) return;
      stopping = true;
      this.log(`${signal}: finishing in-flight requests and closing the database`);
      await server.stop();
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
