/**
 * A request's logger (`request.log`) that becomes pino's child logger only when something logs
 * through it. Fastify makes a child per request, with the operation id bound; most requests log
 * nothing through it, since their one line is written by request-log.ts through the app's
 * logger with the id as a field, so the child would be made and dropped some 50,000 times a
 * second under load for nothing. What is written through this one, when it is, reads exactly
 * as the child's would (the same bindings, the same options).
 */
import type { FastifyBaseLogger, LogLevel } from 'fastify';
import type { LevelAware } from './request-log.js';

type Bindings = Parameters<FastifyBaseLogger['child']>[0];
type ChildLoggerOptions = NonNullable<Parameters<FastifyBaseLogger['child']>[1]>;
type LogArguments = Parameters<FastifyBaseLogger['info']>;

export class DeferredChildLogger implements FastifyBaseLogger {
  #child: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly childBindings: Bindings,
    private readonly childOptions: ChildLoggerOptions,
  ) {}

  /** The child, made at the first use. */
  private get logger(): FastifyBaseLogger {
    return (this.#child ??= this.parent.child(this.childBindings, this.childOptions));
  }

  get level(): string {
    return this.#child?.level ?? this.childOptions.level ?? this.parent.level;
  }

  set level(level: string) {
    this.logger.level = level;
  }

  fatal(...args: LogArguments): void {
    this.logger.fatal(...args);
  }
  error(...args: LogArguments): void {
    this.logger.error(...args);
  }
  warn(...args: LogArguments): void {
    this.logger.warn(...args);
  }
  info(...args: LogArguments): void {
    this.logger.info(...args);
  }
  debug(...args: LogArguments): void {
    this.logger.debug(...args);
  }
  trace(...args: LogArguments): void {
    this.logger.trace(...args);
  }
  silent(...args: LogArguments): void {
    this.logger.silent(...args);
  }

  /** pino's level check (not in Fastify's logger type), without making the child. */
  isLevelEnabled(level: LogLevel): boolean {
    const target = (this.#child ?? (this.childOptions.level === undefined ? this.parent : this.logger)) as LevelAware;
    return target.isLevelEnabled?.(level) ?? true;
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.logger.child(bindings, options);
  }
}

/** Fastify's `childLoggerFactory`: a deferred child per request. */
export function deferredChildLogger(logger: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  return new DeferredChildLogger(logger, bindings, options);
}
