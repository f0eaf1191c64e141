// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// A Chainlink AggregatorV3Interface for tests and local chains (src/domain/prices/chainlink.ts reads it as it
/// reads a real price feed proxy). Round ids are (phaseId << 64) | aggregator round id, aggregator rounds
/// count up from 1 within a phase, and a round that does not exist reverts "No data present", as the real
/// proxies do. `submit` writes a round at the block's timestamp (pair it with evm_setNextBlockTimestamp);
/// `submitMany` writes many at explicit timestamps; `newPhase` starts a phase, as an aggregator upgrade does.
contract MockAggregator {
    struct Round {
        int192 answer;
        uint64 updatedAt;
    }

    uint8 public immutable decimals;
    string public description;
    uint256 public constant version = 4;
    uint16 public phaseId;
    uint64 public latestAggregatorRound;
    mapping(uint16 => mapping(uint64 => Round)) private rounds;
    uint64 private lastUpdatedAt;

    constructor(uint8 _decimals, string memory _description, uint16 _phaseId) {
        require(_phaseId > 0, "phase 0 is not a phase");
        decimals = _decimals;
        description = _description;
        phaseId = _phaseId;
    }

    function submit(int192 answer) external {
        push(answer, uint64(block.timestamp));
    }

    function submitMany(int192[] calldata answers, uint64[] calldata updatedAts) external {
        require(answers.length == updatedAts.length, "length mismatch");
        for (uint256 i = 0; i < answers.length; i++) push(answers[i], updatedAts[i]);
    }

    function newPhase() external {
        phaseId += 1;
        latestAggregatorRound = 0;
    }

    function push(int192 answer, uint64 updatedAt) private {
        require(updatedAt >= lastUpdatedAt && updatedAt > 0, "rounds go forward in time");
        lastUpdatedAt = updatedAt;
        latestAggregatorRound += 1;
        rounds[phaseId][latestAggregatorRound] = Round(answer, updatedAt);
    }

    function getRoundData(uint80 _roundId) public view returns (uint80, int256, uint256, uint256, uint80) {
        Round memory r = rounds[uint16(_roundId >> 64)][uint64(_roundId)];
        require(r.updatedAt > 0, "No data present");
        return (_roundId, r.answer, r.updatedAt, r.updatedAt, _roundId);
    }

    function latestRoundData() external view returns (uint80, int256, uint256, uint256, uint80) {
        return getRoundData((uint80(phaseId) << 64) | latestAggregatorRound);
    }
}
