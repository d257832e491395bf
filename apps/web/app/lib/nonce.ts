import { createContext, useContext } from "react";

/**
 * This response's CSP nonce, set by entry.server. In the browser it stays "": browsers hide a
 * nonce attribute from scripts once the page has loaded, so hydration sees "" on both sides.
 */
export const NonceContext = createContext("");

export const useNonce = () => useContext(NonceContext);
