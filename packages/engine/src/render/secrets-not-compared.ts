/**
 * The write-only secrets a plan cannot compare (`Plan.secrets_not_compared`,
 * plan/write-only-secrets.ts): the same sentences in text, Markdown and HTML, so that a reviewer
 * knows a rotation of them would not show. Never a value: only the object, the field paths and
 * why. Addresses come from manifests: each renderer escapes them its own way.
 */
import type { Plan, SecretsNotCompared } from '../plan-model.js';
import { listSome } from './list-some.js';

export const SECRETS_NOT_COMPARED_HEADING = 'Write-only secrets that cannot be compared with what was last sent (a changed value would not show)';

/** `EventDestination/audit: target.kinesis.auth.creds.aws_secret_access_key: <why>`, unescaped. */
const secretsNotComparedSentence = (entry: SecretsNotCompared): string => `${entry.address}: ${listSome(entry.fields)}: ${entry.why}`;

/** The sentences, one per object; none when there is nothing to say. */
export const secretsNotCompared = (plan: Pick<Plan, 'secrets_not_compared'>): string[] => (plan.secrets_not_compared ?? []).map(secretsNotComparedSentence);
