export { Vault, VaultError, vaultFromConfig } from './vault.ts';
export { hmacHex, safeEqual, signToken, verifyToken } from './signed-token.ts';
