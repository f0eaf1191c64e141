// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// The OP-stack GasPriceOracle predeploy's getL1Fee for tests and local chains: on Base the L1 data fee of a
/// transaction is read from 0x420000000000000000000000000000000000000F (viem's estimateL1Fee, which
/// src/domain/settlement/onchain/chain-tx/l1-fee.ts calls). src/testing/op-stack.ts installs this contract's code
/// at that address on anvil and sets the fee it answers, so the affordability checks can be tested with an L1 fee
/// larger than the L2 execution fee, as on Base.
contract MockGasPriceOracle {
    /// The fee answered for any transaction, wei (storage slot 0).
    uint256 public l1Fee;

    function setL1Fee(uint256 fee) external {
        l1Fee = fee;
    }

    function getL1Fee(bytes memory) external view returns (uint256) {
        return l1Fee;
    }
}
