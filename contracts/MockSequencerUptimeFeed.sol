// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// A Chainlink L2 Sequencer Uptime Feed for tests and local chains (src/domain/prices/chainlink.ts reads it as it
/// reads a real one, such as Base's 0xBCF85224fc0756B9Fa45aA7892530B47e10b6433): the AggregatorV3Interface, with
/// answer 0 while the sequencer is up and 1 while it is down, startedAt the time the status changed (an L1
/// timestamp on the real feeds) and updatedAt the time the round was written. As the real feeds' updateStatus,
/// a round is written only when the status changes. Round ids are (phaseId << 64) | round, phase 1.
contract MockSequencerUptimeFeed {
    struct Round {
        int256 answer;
        uint64 startedAt;
        uint64 updatedAt;
    }

    uint8 public constant decimals = 0;
    string public constant description = "L2 Sequencer Uptime Status Feed";
    uint256 public constant version = 1;
    uint16 public constant phaseId = 1;
    uint64 public latestAggregatorRound;
    mapping(uint64 => Round) private rounds;

    /// Records that the status became `answer` (0 up, 1 down) at `startedAt`; the same status again is no new round.
    function setStatus(int256 answer, uint64 startedAt) external {
        require(answer == 0 || answer == 1, "status is 0 or 1");
        if (latestAggregatorRound > 0) {
            Round memory last = rounds[latestAggregatorRound];
            require(startedAt >= last.startedAt, "status changes go forward in time");
            if (last.answer == answer) return;
        }
        latestAggregatorRound += 1;
        rounds[latestAggregatorRound] = Round(answer, startedAt, uint64(block.timestamp));
    }

    function getRoundData(uint80 _roundId) public view returns (uint80, int256, uint256, uint256, uint80) {
        require(uint16(_roundId >> 64) == phaseId, "No data present");
        Round memory r = rounds[uint64(_roundId)];
        require(r.updatedAt > 0, "No data present");
        return (_roundId, r.answer, r.startedAt, r.updatedAt, _roundId);
    }

    function latestRoundData() external view returns (uint80, int256, uint256, uint256, uint80) {
        return getRoundData((uint80(phaseId) << 64) | latestAggregatorRound);
    }
}
