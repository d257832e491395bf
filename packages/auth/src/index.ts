export { hashPassword, verifyPassword } from "./passwords.js";
