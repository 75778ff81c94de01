export { ERROR_STATUS, isErrorCode, type ErrorCode } from './error-codes.ts';
export {
  AppError,
  isAppError,
  validationError,
  notFound,
  conflict,
  unauthorized,
  forbidden,
  type AppErrorOptions,
  type ErrorDetail,
} from './app-error.ts';
export { toErrorBody, fromErrorBody, type ErrorBody } from './error-body.ts';
export { unavailableError } from './unavailable.ts';
export { assertNever } from './assert-never.ts';
