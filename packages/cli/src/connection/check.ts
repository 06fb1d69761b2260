/**
 * Checks of the API URL and key as given (a pasted secret often ends with a newline, a copied
 * URL with a space): both are trimmed, then refused with a message that names where the
 * value came from, the flag or its environment variable, and what to do. A key is never
 * quoted, not even in part.
 */
import { sanitize } from '@gatehouse/engine/core';
import { CliError } from '../errors.js';

/**
 * `--api-url` when the flag is on the command line, otherwise `GATEHOUSE_API_URL` (the
 * variable oclif read it from). Used to name a value's source in messages.
 */
export function sourceOf(flag: string, variable: string, argv: readonly string[] = process.argv.slice(2), env: NodeJS.ProcessEnv = process.env): string {
  const onCommandLine = argv.some((arg) => arg === `--${flag}` || arg.startsWith(`--${flag}=`));
  return !onCommandLine && env[variable] !== undefined ? variable : `--${flag}`;
}

/** The URL trimmed and normalised (no trailing slash); a `CliError` naming `source` otherwise. */
export function checkApiUrl(raw: string, source: string): string {
  const text = raw.trim();
  const shown = `'${sanitize(text)}'`;
  const expected = 'expected http(s)://host[:port][/path], e.g. https://api.example.com';
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new CliError('bad_api_url', `${source} is not a URL: ${shown}; ${expected}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new CliError('bad_api_url', `${source} must be an http:// or https:// URL, not ${url.protocol}//…: ${shown}; ${expected}`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new CliError('bad_api_url', `${source} contains a user name or password; give the key in GATEHOUSE_API_KEY instead, and the URL without credentials`);
  }
  if (url.search !== '' || url.hash !== '') throw new CliError('bad_api_url', `${source} has a query or fragment: ${shown}; ${expected}`);
  return url.href.replace(/\/$/, '');
}

/** The key trimmed; a `CliError` naming `source` if it is empty or has spaces or control characters inside. */
export function checkApiKey(raw: string, source: string): string {
  const key = raw.trim();
  if (key === '') throw new CliError('missing_api_key', `${source} is empty (only white space); set it to an API key`);

  if (/[\s\u0000-\u001f\u007f]/.test(key)) {
    throw new CliError('bad_api_key', `${source} has white space or control characters inside the key (not just around it); copy the key again`);
  }
  return key;
}
