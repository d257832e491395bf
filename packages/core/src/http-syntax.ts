/** RFC 9110 token: what a method and a header name may be made of. */
export const HTTP_TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Line breaks and NUL: never in a header value (they would split or end the header). */
export const LINE_BREAK_OR_NUL = /[\r\n\0]/;
/** Field values hold visible characters, spaces, tabs and obs-text; never these other controls. */
export const OTHER_FIELD_CONTROL = /[\u0001-\u0008\u000b\u000c\u000e-\u001f\u007f]/;
