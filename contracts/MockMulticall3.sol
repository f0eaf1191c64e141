// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// Multicall3's `aggregate3` (the one function viem's `multicall` calls) for tests and local chains. Multicall3 is
/// deployed at 0xcA11bde05977b3631167028862bE2a173976CA11 on Base and most EVM chains, not on a fresh anvil:
/// src/testing/multicall3.ts installs this contract's code at that address, so the reconciliation's batched
/// balance reads (src/domain/settlement/onchain/balances.ts) can be tested as they run on Base. Same ABI and
/// semantics as Multicall3's aggregate3: each call's success and return data; a failed call whose
/// `allowFailure` is false reverts the whole call with "Multicall3: call failed".
contract MockMulticall3 {
    struct Call3 {
        address target;
        bool allowFailure;
        bytes callData;
    }

    struct Result {
        bool success;
        bytes returnData;
    }

    function aggregate3(Call3[] calldata calls) external payable returns (Result[] memory returnData) {
        returnData = new Result[](calls.length);
        for (uint256 i = 0; i < calls.length; i++) {
            (bool ok, bytes memory ret) = calls[i].target.call(calls[i].callData);
            require(ok || calls[i].allowFailure, "Multicall3: call failed");
            returnData[i] = Result(ok, ret);
        }
    }
}
