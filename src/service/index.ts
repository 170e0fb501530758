export {
  defineConfig,
  loadConfig,
  toolEntries,
  DEFAULT_CONFIG_PATH,
  type InterlockConfig,
  type McpUpstream,
} from './config.ts';
export { startService, type Service, type ServiceOptions } from './service.ts';
export { createThreadsAdapter, ThreadExistsError } from './threads.ts';
