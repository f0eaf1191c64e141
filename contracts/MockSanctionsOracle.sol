// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// A sanctions oracle for tests and local chains with the interface of Chainalysis's SanctionsList (deployed by
/// Chainalysis at 0x40C57923924B5c5c5455c48D93317139ADDaC8fb on Ethereum, Base and other chains): `isSanctioned`
/// is what a service reads (SANCTIONS_ORACLE_ADDRESS), `addToSanctionsList` / `removeFromSanctionsList` are what
/// its owner writes, with the same events. Written for this project (not Chainalysis's code); the deployer is the
/// owner. Never deployed to a real network: src/testing/sanctions-oracle.ts deploys it on anvil.
contract MockSanctionsOracle {
    address public immutable owner;
    mapping(address => bool) private sanctioned;

    event SanctionedAddress(address indexed addr);
    event NonSanctionedAddress(address indexed addr);
    event SanctionedAddressesAdded(address[] addrs);
    event SanctionedAddressesRemoved(address[] addrs);

    constructor() {
        owner = msg.sender;
    }

    modifier onlyOwner() {
        require(msg.sender == owner, "Ownable: caller is not the owner");
        _;
    }

    function name() external pure returns (string memory) {
        return "Chainalysis sanctions oracle";
    }

    function addToSanctionsList(address[] memory newSanctions) public onlyOwner {
        for (uint256 i = 0; i < newSanctions.length; i++) {
            sanctioned[newSanctions[i]] = true;
        }
        emit SanctionedAddressesAdded(newSanctions);
    }

    function removeFromSanctionsList(address[] memory removeSanctions) public onlyOwner {
        for (uint256 i = 0; i < removeSanctions.length; i++) {
            sanctioned[removeSanctions[i]] = false;
        }
        emit SanctionedAddressesRemoved(removeSanctions);
    }

    function isSanctioned(address addr) public view returns (bool) {
        return sanctioned[addr];
    }

    /// As Chainalysis's: the answer of isSanctioned, with an event that says it.
    function isSanctionedVerbose(address addr) public returns (bool) {
        if (isSanctioned(addr)) {
            emit SanctionedAddress(addr);
            return true;
        }
        emit NonSanctionedAddress(addr);
        return false;
    }
}
