// Sample parameters shared by the snapshot catalogs (snapshot-*.ts).
export const U1 = '00000000-0000-4000-8000-000000000001';
export const U2 = '00000000-0000-4000-8000-000000000002';
export const WALLET = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
export const PRIVY = { sub: 'did:privy:abc', address: WALLET, xHandle: 'alice', xAvatarUrl: 'https://x.example/a.png' };
