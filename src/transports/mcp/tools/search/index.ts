// The search tools; each wraps exactly one operation of src/domain/search.
import type { ToolDefinition } from '../tool.js';
import { searchTool } from './search.js';

export const SEARCH_TOOLS: ToolDefinition[] = [searchTool];
