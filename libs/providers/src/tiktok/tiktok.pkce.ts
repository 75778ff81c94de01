import { createHash } from 'node:crypto';

/**
 * TikTok's PKCE challenge: SHA-256 of the verifier as lowercase hex (developers.tiktok.com/doc/
 * login-kit-desktop, "code_challenge"), not RFC 7636's base64url, which TikTok refuses at the code
 * exchange with "Code verifier or code challenge is invalid." (StackOverflow 78856419). Sent with
 * `code_challenge_method=S256`, as TikTok's own examples do.
 */
export const tiktokCodeChallenge = (verifier: string): string => createHash('sha256').update(verifier).digest('hex');
