import twitterText from 'twitter-text';

/**
 * X's weighted length as the network computes it: with X's own library (npm `twitter-text`, config
 * v3), as docs.x.com fundamentals/counting-characters says X does. Scheme-less domains count 23 like
 * any URL, trailing punctuation is not part of the URL, CJK and emoji weigh 2.
 */
export const weightedLength = (text: string): number => twitterText.parseTweet(text).weightedLength;

/** Standard accounts post 280 weighted characters; every X Premium tier up to 25,000 (help.x.com "About longer posts"). */
export const textLimitOf = (subscription: string): number => (subscription === 'None' ? 280 : 25_000);
