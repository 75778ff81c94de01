export { loadConfig, ConfigError } from './load-config.ts';
export { commonConfigSchema } from './common-schema.ts';
export { exitOnConfigError } from './exit-on-config-error.ts';
export {
  COMMON_SECRET_URLS,
  privateUrlsProblems,
  productionSecretProblems,
  type ProductionSecretOptions,
} from './production-secrets.ts';
export { freePlanConfigSchema } from './plan-schema.ts';
