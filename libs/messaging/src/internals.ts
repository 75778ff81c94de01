/** Test hooks, reachable only by importing this module directly (not exported from the package index). */
export const testHooks = Symbol('testHooks');

export interface TestHooks {
  /** Destroys the TCP socket, as a network failure or a killed broker would. */
  dropConnection(): void;
  /** Closes every work consumer's channel while the connection stays up. */
  loseConsumerChannels(): Promise<void>;
}
