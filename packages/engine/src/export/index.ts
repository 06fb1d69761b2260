/** Export: live state -> manifest files (the caller writes them). */
export { exportLive, type ExportOptions, type ExportResult, type SecretPlaceholder } from './export.js';
export { EXPORT_HEADER, fileNameOf, isExportedText, manifestSchemaUrl, SCHEMA_LINE_PREFIX, type ExportFile } from './files.js';
export { isExportablePath } from './paths.js';
export { recordedDirectory } from '../load/manifest-paths.js';
