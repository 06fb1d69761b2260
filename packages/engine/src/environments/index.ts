export { environmentDocuments, type EnvironmentInput } from './documents.js';
export { applyOverlays } from './overlay.js';
export { findProjectFile, readProject, expandSetting, ProjectSettingError, PROJECT_FILE_NAME, type Project, type ProjectEnvironment } from './project.js';
export { isRenderedText, renderEnvironment, type RenderedFile } from './render.js';
export {
  anyChanges,
  renderPlansText,
  renderPlansMarkdown,
  renderPlansJson,
  renderDriftsText,
  renderDriftsMarkdown,
  renderDriftsJson,
  ENVIRONMENTS_FORMAT_VERSION,
  type EnvironmentPlan,
  type EnvironmentDrift,
} from './report.js';
