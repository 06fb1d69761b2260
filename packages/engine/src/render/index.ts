/** Renderers: pure functions from a `Plan` to text, JSON or Markdown. */
export { renderText, type TextOptions } from './text.js';
export { renderKindSummary } from './kind-summary.js';
export { renderJson, parsePlanJson, isSavedPlanText, toJsonPlan, PlanFormatError, type JsonPlan, type JsonChange } from './json.js';
export { renderMarkdown, MARKDOWN_MAX_LENGTH, type MarkdownOptions } from './markdown.js';
export { plainStyle, type Style, type Paint } from './style.js';
export { describeTarget, summaryLine, countChanges, renderJsonDocument, EMBEDDED_NOTICE } from './values.js';
export { sanitize, hasUnsafeCharacters, terminalSafeJson, type SanitizeOptions } from './sanitize.js';
export { policyTextLines, policyMarkdown, formatPolicyResult, policyCounts } from './policy.js';
export { renderHtml } from './html.js';
export { listSome, LIST_SHOWN } from './list-some.js';
