export { MAX_TOOL_NAME, toolName } from './tool-name.js';
