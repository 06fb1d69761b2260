/** Drift: detection, its report value and renderers, and the marker evidence apply writes. */
export { classifyDrift, detectDrift, driftFromRead, readForDrift, type DriftInput, type DriftOptions } from './detect.js';
export { selectHealable, type HealCause, type HealPermissions, type HealSelection, type HeldChange } from './heal.js';
export { childrenHash, liveHash } from '../identity/hash.js';
export { referenceTokens } from '../plan/reference-tokens.js';
export { DRIFT_FORMAT_VERSION, DRIFT_KINDS, type DriftKind, type DriftField, type DriftedObject, type DriftReport, type DriftSummary } from './model.js';
export { renderDriftText, renderDriftJson, renderDriftMarkdown, driftSummaryLine, DRIFT_TITLES } from './render.js';
export { renderDriftHtml } from './html.js';
